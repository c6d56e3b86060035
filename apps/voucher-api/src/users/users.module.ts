import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from './user.entity';
import { UsersDirectory } from './users.directory';
import { UsersStore } from './users.store';

@Module({
  imports: [TypeOrmModule.forFeature([User])],
  providers: [UsersStore, UsersDirectory],
  exports: [UsersStore, UsersDirectory],
})
export class UsersModule {}
