import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { FRIEND_REQUEST_MODES, FriendRequestMode } from '../../bots/entities/bot.entity';

export class SetFriendRequestModeDto {
  @ApiProperty({ enum: FRIEND_REQUEST_MODES })
  @IsIn(FRIEND_REQUEST_MODES)
  friend_request_mode: FriendRequestMode;
}

export class AnswerFriendRequestDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  request_id: string;

  @ApiProperty()
  @IsBoolean()
  accept: boolean;
}

export class SendFriendRequestDto {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  message?: string;
}
