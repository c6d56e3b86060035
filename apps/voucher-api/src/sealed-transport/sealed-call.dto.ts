import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, Min, ValidateNested } from 'class-validator';

/** The two headers of a runtime call that carry secrets; both travel only inside the seal. */
export class SealedHeadersDto {
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  authorization?: string;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  'idempotency-key'?: string;
}

/**
 * The plaintext of a sealed call (docs/sealed-transport.md): the runtime call as it would have gone on
 * the wire, its freshness (`iat`, `jti`) and the caller's ephemeral key for the sealed answer.
 */
export class SealedCallDto {
  @IsIn(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
  method: string;

  /** The logical path with its query string; only runtime routes are admitted (checked after routing). */
  @IsString()
  @MaxLength(2048)
  @Matches(/^\/api\/v1\/open-platform\/[\x21-\x7e]*$/, {
    message: 'path must be an /api/v1/open-platform/ path of printable characters',
  })
  path: string;

  @IsObject()
  @ValidateNested()
  @Type(() => SealedHeadersDto)
  headers: SealedHeadersDto;

  /** The request body's exact JSON text; the idempotency fingerprint is computed on these bytes. */
  @IsOptional()
  @IsString()
  body?: string;

  /** Seconds since the epoch when the call was sealed. */
  @IsInt()
  @Min(0)
  iat: number;

  /** The seal's unique id: each is accepted once within the freshness window. */
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{16,128}$/, { message: 'jti must be 16-128 characters of A-Z a-z 0-9 _ -' })
  jti: string;

  /** The caller's ephemeral public JWK; the answer is sealed to it. */
  @IsObject()
  response_key: Record<string, unknown>;
}
