import { ApiProperty } from '@nestjs/swagger';

/** The holder's consent that an application may issue vouchers to them. */
export class AuthorizationView {
  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  application_name: string;

  @ApiProperty({ description: 'The holder' })
  user_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}
