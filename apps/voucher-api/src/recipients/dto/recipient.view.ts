import { ApiProperty } from '@nestjs/swagger';

/** A user the owner may allocate stock to. */
export class RecipientView {
  @ApiProperty({ description: 'The user id' })
  id: string;

  @ApiProperty({ description: 'The display name the user last signed in with' })
  name: string;
}
