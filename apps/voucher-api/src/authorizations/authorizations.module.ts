import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthorizationsStore } from './authorizations.store';
import { Authorization } from './entities/authorization.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Authorization])],
  providers: [AuthorizationsStore],
  exports: [AuthorizationsStore],
})
export class AuthorizationsModule {}
