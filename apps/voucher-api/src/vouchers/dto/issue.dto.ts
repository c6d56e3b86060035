import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

export class IssueDto {
  @ApiProperty({ description: 'ID of an active template of the calling application' })
  @IsString()
  @Length(1, 64)
  template_id: string;

  @ApiProperty({ description: "The caller's unique issue number" })
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'external_issue_id must be printable ASCII without spaces' })
  external_issue_id: string;

  @ApiProperty({ description: 'A user who has authorised the application or already holds one of its vouchers' })
  @IsString()
  @Length(1, 128)
  recipient_user_id: string;
}
