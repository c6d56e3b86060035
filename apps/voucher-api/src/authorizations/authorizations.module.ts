import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Authorization } from './entities/authorization.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Authorization])],
  exports: [TypeOrmModule],
})
export class AuthorizationsModule {}
