import { ApiProperty } from '@nestjs/swagger';

/** Step 1's answer: where to PUT the bytes and with which headers. */
export class UploadCredentialsView {
  @ApiProperty({ description: 'PUT the bytes here with exactly `headers`; valid once, until `expiresAt`' })
  uploadUrl: string;

  @ApiProperty({ description: 'Storage key, repeated in the complete call' })
  key: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'Content-Type': 'image/png', 'Content-Length': '1024' },
    description: 'Headers the PUT must carry; they are bound into the URL',
  })
  headers: Record<string, string>;

  @ApiProperty({
    type: 'integer',
    description: 'Unix seconds after which the upload URL is refused and the upload purged',
  })
  expiresAt: number;
}

/** A stored file (complete and getFile): metadata and a temporary download URL. */
export class FileInfoView {
  @ApiProperty({ format: 'uuid' })
  file_id: string;

  @ApiProperty()
  file_name: string;

  @ApiProperty()
  mime_type: string;

  @ApiProperty({ type: 'integer', description: 'Bytes' })
  file_size: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels, read from the bytes of images and videos' })
  width: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels, read from the bytes of images and videos' })
  height: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Seconds, read from the bytes of audio and video' })
  duration: number | null;

  @ApiProperty({ description: 'Temporary download URL' })
  url: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds at which `url` stops working' })
  url_expires_at: number;
}
