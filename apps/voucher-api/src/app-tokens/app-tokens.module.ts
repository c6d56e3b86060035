import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationsModule } from '../applications/applications.module';
import { AppTokensController } from './app-tokens.controller';
import { AppTokensService } from './app-tokens.service';
import { AppTokensStore } from './app-tokens.store';
import { AppToken } from './entities/app-token.entity';

@Module({
  imports: [TypeOrmModule.forFeature([AppToken]), ApplicationsModule],
  controllers: [AppTokensController],
  providers: [AppTokensStore, AppTokensService],
  exports: [AppTokensStore],
})
export class AppTokensModule {}
