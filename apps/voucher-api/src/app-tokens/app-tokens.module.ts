import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { AppTokensController } from './app-tokens.controller';
import { AppTokensService } from './app-tokens.service';
import { AppTokensStore } from './app-tokens.store';

@Module({
  imports: [ApplicationsModule],
  controllers: [AppTokensController],
  providers: [AppTokensStore, AppTokensService],
  exports: [AppTokensStore],
})
export class AppTokensModule {}
