import { ApiProperty } from '@nestjs/swagger';
import { ApplicationView } from '../../applications/dto/application.view';

/** The application as staff see it: with its owner. */
export class AdminApplicationView extends ApplicationView {
  @ApiProperty({ description: 'The account that owns the application' })
  owner_id: string;
}
