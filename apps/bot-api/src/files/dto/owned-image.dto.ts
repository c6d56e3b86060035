import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class OwnedImageQuery {
  @ApiProperty({ description: 'The account that must own the image (its account id, the JWT `sub`)', maxLength: 128 })
  @IsString()
  @Length(1, 128)
  owner: string;
}

/** What another platform service may learn about an image an account owns: never its bytes or storage key. */
export class OwnedImageView {
  @ApiProperty({ format: 'uuid' })
  file_id: string;

  @ApiProperty({ example: 'image/png' })
  mime_type: string;

  @ApiProperty({ type: 'integer', nullable: true })
  width: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  height: number | null;
}
