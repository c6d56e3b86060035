import type { Type } from '@nestjs/common';
import { type ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';

/**
 * `@ApiProperty(nullableObject(ReversalView, '…'))` on a field that holds an object of that schema or
 * null. OpenAPI 3.0 cannot make a `$ref` nullable (`nullable` beside `allOf: [$ref]` still refuses
 * null), so the field is documented as one of the two; the class must be named in `@ApiExtraModels`.
 */
export function nullableObject(model: Type<unknown>, description?: string): ApiPropertyOptions {
  return {
    anyOf: [{ $ref: getSchemaPath(model) }, { type: 'object', nullable: true, enum: [null] }],
    ...(description ? { description } : {}),
  };
}
