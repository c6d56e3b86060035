import { Module } from '@nestjs/common';
import { AuthorizationsStore } from './authorizations.store';

@Module({
  providers: [AuthorizationsStore],
  exports: [AuthorizationsStore],
})
export class AuthorizationsModule {}
