import { ApiProperty } from '@nestjs/swagger';
import { ApplicationView } from '../../applications/dto/application.view';
import { VOUCHER_PERMISSIONS, VoucherPermission } from '../../applications/runtime-route.options';

/** The calling token as its self-check shows it: its grants, never its secret. */
export class TokenSelfView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'The start of the token, as list views show it' })
  prefix: string;

  @ApiProperty({ enum: VOUCHER_PERMISSIONS, isArray: true })
  permissions: VoucherPermission[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;
}

/** The application that owns the calling token, with the token. */
export class ApplicationSelfView extends ApplicationView {
  @ApiProperty({ type: TokenSelfView, description: 'The calling token' })
  token: TokenSelfView;
}
