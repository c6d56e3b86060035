import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from './user.entity';
import { UsersDirectory } from './users.directory';

@Module({
  imports: [TypeOrmModule.forFeature([User])],
  providers: [UsersDirectory],
  exports: [UsersDirectory],
})
export class UsersModule {}
