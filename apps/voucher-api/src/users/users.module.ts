import { Module } from '@nestjs/common';
import { UsersDirectory } from './users.directory';
import { UsersStore } from './users.store';

@Module({
  providers: [UsersStore, UsersDirectory],
  exports: [UsersStore, UsersDirectory],
})
export class UsersModule {}
