import { PageQueryDto } from '@app/platform';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { TEMPLATE_STATUSES, TemplateStatus } from '../../templates/entities/template.entity';

export class ReviewQueueQuery extends PageQueryDto {
  @ApiPropertyOptional({ enum: TEMPLATE_STATUSES, example: 'reviewing' })
  @IsOptional()
  @IsIn(TEMPLATE_STATUSES)
  status?: TemplateStatus;
}
