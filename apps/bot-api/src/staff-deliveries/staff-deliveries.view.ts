import { ApiProperty, IntersectionType, PickType } from '@nestjs/swagger';
import { DELIVERY_ERROR_CLASSES, DeliveryErrorClass } from '@app/bot-delivery';
import { AttemptSeriesView, AttemptView, DeliveryView } from '../deliveries/delivery.view';
import { REDRIVE_JOB_KINDS, RedriveJobKind } from './redrive-jobs.store';

const countsMap = (description: string) => ({
  type: 'object' as const,
  additionalProperties: { type: 'integer' },
  description,
});
const openObject = (description: string, nullable = false) => ({
  type: 'object' as const,
  additionalProperties: true,
  nullable,
  description,
});

/** What staff see of a delivery beyond what its bot's developer sees: whose it is and why it failed. */
class StaffDeliveryFacts {
  @ApiProperty()
  bot_id: string;

  @ApiProperty()
  bot_name: string;

  @ApiProperty({ description: "The bot owner's account id" })
  owner_id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: `Class of the last failed attempt: ${DELIVERY_ERROR_CLASSES.join(', ')}`,
  })
  error_class: DeliveryErrorClass | null;
}

/**
 * A delivery of any bot, as the staff list shows it: the developer's delivery record (its fields and
 * their documentation derived from DeliveryView, so the two cannot drift) with the staff facts.
 */
export class StaffDeliveryView extends IntersectionType(
  PickType(DeliveryView, [
    'update_id',
    'update_type',
    'status',
    'attempts',
    'series',
    'trigger',
    'dead_letter_at',
    'last_error',
    'last_status_code',
    'created_at',
    'updated_at',
  ] as const),
  StaffDeliveryFacts,
) {}

export class StaffDeliveryDetailView extends IntersectionType(
  StaffDeliveryView,
  PickType(DeliveryView, ['next_attempt_at', 'succeeded_at'] as const),
) {
  @ApiProperty({ description: 'The bot’s delivery mode now (redelivery needs webhook)' })
  delivery_mode: string;

  @ApiProperty(openObject('The Update as delivered'))
  update: Record<string, unknown>;

  @ApiProperty({ type: [AttemptView], description: 'Every attempt, oldest first' })
  attempt_log: AttemptView[];

  @ApiProperty({
    type: [AttemptSeriesView],
    description: 'Every attempt series still in the log, oldest first, the current one included',
  })
  series_log: AttemptSeriesView[];
}

export class StaffDeliveryPage {
  @ApiProperty({ type: [StaffDeliveryView] })
  items: StaffDeliveryView[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' })
  next_cursor: string | null;
}

export class BotDeliveryCountsView {
  @ApiProperty()
  bot_id: string;

  @ApiProperty()
  bot_name: string;

  @ApiProperty()
  owner_id: string;

  @ApiProperty()
  delivery_mode: string;

  @ApiProperty({ type: 'integer' })
  dead_letter: number;

  @ApiProperty({ type: 'integer', description: 'pending or retrying' })
  open: number;

  @ApiProperty({ type: 'integer' })
  succeeded: number;

  @ApiProperty({ type: 'integer' })
  total: number;
}

export class DeliverySummaryView {
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  since: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  until: string | null;

  @ApiProperty(countsMap('Deliveries per status whose last event is in the window'))
  by_status: Record<string, number>;

  @ApiProperty(countsMap('Dead letters per error class in the window'))
  dead_letters_by_error: Record<string, number>;

  @ApiProperty({ type: [BotDeliveryCountsView], description: 'At most 20, most dead letters first' })
  bots: BotDeliveryCountsView[];
}

export class RedriveFilterView {
  @ApiProperty({ enum: ['dead_letter'] })
  status: 'dead_letter';

  @ApiProperty({ type: String, nullable: true })
  bot_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  since: string | null;

  @ApiProperty({ type: String, nullable: true })
  until: string | null;

  @ApiProperty({ type: String, nullable: true, description: `One of ${DELIVERY_ERROR_CLASSES.join(', ')}` })
  error: DeliveryErrorClass | null;
}

export class BotCountView {
  @ApiProperty()
  bot_id: string;

  @ApiProperty({ type: 'integer' })
  count: number;
}

export class RedriveDryRunView {
  @ApiProperty({ type: RedriveFilterView })
  filter: RedriveFilterView;

  @ApiProperty({ type: 'integer', description: 'Dead letters a redrive with this filter would take now' })
  would_redeliver: number;

  @ApiProperty({ type: [BotCountView] })
  per_bot: BotCountView[];
}

export class RedriveJobView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['running', 'completed', 'cancelled'] })
  status: 'running' | 'completed' | 'cancelled';

  @ApiProperty({
    enum: REDRIVE_JOB_KINDS,
    description: "staff: started by platform staff; auto: started by the system when a bot's receiver recovered",
  })
  kind: RedriveJobKind;

  @ApiProperty({ type: RedriveFilterView })
  filter: RedriveFilterView;

  @ApiProperty({ type: 'integer' })
  rate_per_bot: number;

  @ApiProperty({ type: 'integer', description: 'Dead letters the job took when it started' })
  total: number;

  @ApiProperty({ description: 'Staff account that started it, or `system` for an automatic job' })
  created_by: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finished_at: string | null;
}

export class RedriveBotProgressView {
  @ApiProperty()
  bot_id: string;

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ type: 'integer' })
  done: number;

  @ApiProperty({ type: 'integer' })
  failed: number;

  @ApiProperty({ type: 'integer' })
  pending: number;
}

export class RedriveProgressView extends RedriveJobView {
  @ApiProperty({ type: 'integer', description: 'Redelivered' })
  done: number;

  @ApiProperty({ type: 'integer', description: 'No longer a dead letter, or the bot left webhook mode' })
  failed: number;

  @ApiProperty({ type: 'integer' })
  pending: number;

  @ApiProperty({ type: [RedriveBotProgressView] })
  per_bot: RedriveBotProgressView[];
}

export class RedriveJobPage {
  @ApiProperty({ type: [RedriveJobView] })
  items: RedriveJobView[];

  @ApiProperty({ type: String, nullable: true })
  next_cursor: string | null;
}

export class AuditEntryView {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'Staff account, or `system` for an action of the platform itself' })
  actor_id: string;

  @ApiProperty({
    description: 'delivery.redeliver, redrive.dry_run, redrive.start, redrive.cancel, or redrive.auto_start (system)',
  })
  action: string;

  @ApiProperty({ type: String, nullable: true, description: 'update_id or redrive job id' })
  target: string | null;

  @ApiProperty(openObject('The filter of the action', true))
  filter: Record<string, unknown> | null;

  @ApiProperty(openObject('What it counted or changed', true))
  counts: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class AuditPage {
  @ApiProperty({ type: [AuditEntryView] })
  items: AuditEntryView[];

  @ApiProperty({ type: String, nullable: true })
  next_cursor: string | null;
}

/** Who the console acts as: the staff account of the token (or of the SSO proxy's header). */
export class StaffSessionView {
  @ApiProperty({ description: 'The account id (`sub`), as the audit log records it' })
  id: string;

  @ApiProperty({ description: 'The display name (`name`)' })
  name: string;

  @ApiProperty({ type: [String] })
  roles: string[];
}
