import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Inject,
  Injectable,
  Logger,
  UseFilters,
} from '@nestjs/common';
import { ApiError, ENVELOPE_STYLE, EnvelopeExceptionFilter, EnvelopeStyle } from '@app/envelope';
import { bearerToken, principalOf } from '@app/auth';
import { Database } from '@app/platform';
import { RATE_LIMIT_STORE, type RateLimitStore, WindowedRateLimiters } from '@app/rate-limits';
import type { Request } from 'express';
import { BotTokenService } from '../bots/auth/bot-token.service';
import { BotErrors } from '../bot-errors';
import { BotConfig } from '../config/bot.config';
import { auditRequest, stringField } from './audit-request';
import { VirtualMemberAction, VirtualMemberAuditStore } from './virtual-member-audit.store';

/** The code a refusal answers with, as the envelope names it. */
export function refusalCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code ?? BotErrors.defaultCodeFor(error.status);
  if (error instanceof HttpException) return BotErrors.defaultCodeFor(error.getStatus());
  return 'INTERNAL_ERROR';
}

/**
 * Writes the audit entry of every refused virtual-member call, then answers it as the envelope does.
 * As a route's exception filter it sees every refusal after routing: the bot-token guard (an available
 * or unavailable bot), the route limit, body validation (a 1001-character text), the disabled feature,
 * admission, scope and quota. A successful call's entry is written by the service in the call's own
 * transaction. Only a call without a valid bot token has no bot to be logged under.
 *
 * A refusal costs the caller nothing, so what it writes is bounded: a summary of the call, never its
 * body, and at most VIRTUAL_MEMBER_AUDIT_REFUSALS_PER_MINUTE entries per bot and minute (counted like
 * every request limit); refusals beyond that in the same minute are answered but not written.
 */
@Catch()
@Injectable()
export class VirtualMemberAuditFilter implements ExceptionFilter {
  private readonly logger = new Logger(VirtualMemberAuditFilter.name);
  private readonly envelope: EnvelopeExceptionFilter;
  private readonly recorded: WindowedRateLimiters<'refusals'>;

  constructor(
    @Inject(ENVELOPE_STYLE) style: EnvelopeStyle,
    private readonly audit: VirtualMemberAuditStore,
    private readonly tokens: BotTokenService,
    private readonly database: Database,
    @Inject(RATE_LIMIT_STORE) store: RateLimitStore,
    config: BotConfig,
  ) {
    this.envelope = new EnvelopeExceptionFilter(style, BotErrors);
    this.recorded = new WindowedRateLimiters({
      store,
      limits: { refusals: config.VIRTUAL_MEMBER_AUDIT_REFUSALS_PER_MINUTE },
      keyPrefix: 'vm-audit',
    });
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    // The answer waits for the entry, so a bot (or a test) that reads the log next finds it.
    void this.record(exception, host)
      .catch((error: unknown) => {
        // The refusal still reaches the bot; the lost entry is reported to the operators.
        this.logger.error(`virtual member audit entry not written: ${(error as Error).message}`);
      })
      .finally(() => this.envelope.catch(exception, host));
  }

  private async record(exception: unknown, host: ArgumentsHost): Promise<void> {
    const req = host.switchToHttp().getRequest<Request>();
    const action = actionOf(req);
    const botId = principalOf(req)?.tenantId ?? (await this.botOfToken(req, exception));
    if (!action || !botId) return;
    if (!(await this.recorded.consume('refusals', botId)).allowed) return;
    const body: unknown = req.body;
    await this.audit.record(this.database, {
      botId,
      action,
      outcome: 'refused',
      errorCode: refusalCodeOf(exception),
      chatId: stringField(body, 'chat_id'),
      virtualMemberId: stringField(body, 'virtual_member_id'),
      request: auditRequest(action, body),
    });
  }

  /**
   * The guard refused an unavailable bot (not approved, disabled) before naming it: the token still
   * tells which one (from the token cache the guard just filled). An unknown token names no bot and
   * is not looked up a second time.
   */
  private async botOfToken(req: Request, exception: unknown): Promise<string | undefined> {
    const token = bearerToken(req.headers.authorization);
    if (!token || refusalCodeOf(exception) !== 'BOT_NOT_AVAILABLE') return undefined;
    return (await this.tokens.findByToken(token))?.id;
  }
}

const ACTIONS_BY_METHOD: Record<string, VirtualMemberAction> = {
  createChatVirtualMember: 'create',
  listChatVirtualMembers: 'list',
  sendAsVirtualMember: 'send',
};

/**
 * The method a call is for, from the last segment of the route it matched (the filter is on these
 * routes only): the route, not the path as spelled, so a trailing slash cannot hide the call.
 */
function actionOf(req: Request): VirtualMemberAction | undefined {
  const route = (req.route as { path?: string } | undefined)?.path ?? req.path;
  const method = route.split('/').filter(Boolean).pop() ?? '';
  return Object.prototype.hasOwnProperty.call(ACTIONS_BY_METHOD, method) ? ACTIONS_BY_METHOD[method] : undefined;
}

/** Every call of the method is in the virtual-member audit log: successes by the service, refusals here. */
export const AuditedVirtualMemberCall = () => UseFilters(VirtualMemberAuditFilter);
