import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ALLOWED_FILE_TYPES, AllowedFileType, MAX_FILE_SIZE } from '../file-types';

/** What an upload declares in step 1 and repeats in step 3. */
export class UploadDeclarationDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'photo.png', description: 'Shown to recipients; no path' })
  @IsString()
  @Length(1, 255)
  @Matches(/^[^/\\\u0000-\u001f\u007f]+$/, {
    message: 'fileName must be a plain name without slashes or control characters',
  })
  fileName: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_FILE_SIZE, description: 'Bytes; at most 50 MB' })
  @IsInt()
  @Min(1)
  @Max(MAX_FILE_SIZE)
  fileSize: number;

  @ApiProperty({ enum: ALLOWED_FILE_TYPES, description: 'MIME type; the PUT must send it as Content-Type' })
  @IsIn(ALLOWED_FILE_TYPES)
  fileType: AllowedFileType;
}

export class UploadCredentialsDto extends UploadDeclarationDto {}

export class CompleteUploadDto extends UploadDeclarationDto {
  @ApiProperty({ description: 'The key returned by upload-credentials', maxLength: 512 })
  @IsString()
  @Length(1, 512)
  key: string;
}

export class GetFileDto {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Length(1, 64)
  file_id: string;
}

/** What every signed URL of the disk driver carries; each field is bound by the signature. */
export class SignedDownloadQuery {
  @ApiProperty()
  @IsString()
  @Length(1, 255)
  type: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds after which the URL is refused' })
  @IsString()
  @Matches(/^[0-9]{1,12}$/)
  expires: string;

  @ApiProperty()
  @IsString()
  @Length(1, 128)
  signature: string;
}

/** Query of the disk driver's signed PUT URL: a download's fields and the declared size. */
export class SignedUploadQuery extends SignedDownloadQuery {
  @ApiProperty({ type: 'integer' })
  @IsString()
  @Matches(/^[1-9][0-9]{0,15}$/)
  size: string;
}
