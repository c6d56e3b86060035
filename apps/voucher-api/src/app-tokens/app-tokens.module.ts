import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { AppTokensController } from './app-tokens.controller';
import { AppTokensService } from './app-tokens.service';

@Module({
  imports: [ApplicationsModule],
  controllers: [AppTokensController],
  providers: [AppTokensService],
})
export class AppTokensModule {}
