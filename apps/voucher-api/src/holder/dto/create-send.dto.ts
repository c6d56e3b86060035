import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class CreateSendDto {
  @ApiProperty({ maxLength: 128, description: 'The user who may claim the voucher' })
  @IsString()
  @Length(1, 128)
  recipient_user_id: string;
}
