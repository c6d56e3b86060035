import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppToken } from './entities/app-token.entity';
import { Application } from './entities/application.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Application, AppToken])],
  exports: [TypeOrmModule],
})
export class ApplicationsModule {}
