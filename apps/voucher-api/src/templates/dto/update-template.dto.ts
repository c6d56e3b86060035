import { PartialType } from '@nestjs/swagger';
import { CreateTemplateDto } from './template-body.dto';

/** Any field of the create body; given fields replace the stored ones (validity as a whole). */
export class UpdateTemplateDto extends PartialType(CreateTemplateDto) {}
