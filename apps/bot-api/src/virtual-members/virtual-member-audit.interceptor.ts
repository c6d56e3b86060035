import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  Logger,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { principalOf } from '@app/auth';
import type { Request } from 'express';
import { catchError, from, Observable, switchMap, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import { BotErrors } from '../bot-errors';
import { auditRequest, stringField } from './audit-request';
import { VirtualMemberAction, VirtualMemberAuditStore } from './virtual-member-audit.store';

const ACTION = 'virtual-member-audit:action';

/** The code a refusal answered with, as the envelope would name it. */
function errorCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.code ?? BotErrors.defaultCodeFor(error.status);
  if (error instanceof HttpException) return BotErrors.defaultCodeFor(error.getStatus());
  return 'INTERNAL_ERROR';
}

/**
 * Writes the audit entry of every refused virtual-member call: body validation (which runs inside this
 * interceptor, so a 1001-character text is logged too), disabled feature, admission and quota. A
 * successful call's entry is written by the service in the call's own transaction. A call the bot-token
 * guard refuses has no authenticated bot and so nothing to log under.
 */
@Injectable()
export class VirtualMemberAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger(VirtualMemberAuditInterceptor.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: VirtualMemberAuditStore,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<VirtualMemberAction>(ACTION, context.getHandler());
    const req = context.switchToHttp().getRequest<Request>();
    const botId = principalOf(req)?.tenantId;
    if (!action || !botId) return next.handle();
    const body: unknown = req.body;
    return next.handle().pipe(
      catchError((error: unknown) =>
        from(
          this.audit
            .record(this.dataSource.manager, {
              botId,
              action,
              outcome: 'refused',
              errorCode: errorCodeOf(error),
              chatId: stringField(body, 'chat_id'),
              virtualMemberId: stringField(body, 'virtual_member_id'),
              request: auditRequest(action, body),
            })
            .catch((auditError: unknown) => {
              // The refusal still reaches the bot; the lost entry is reported for the operators.
              this.logger.error(`virtual member audit entry not written: ${(auditError as Error).message}`);
            }),
        ).pipe(switchMap(() => throwError(() => error))),
      ),
    );
  }
}

/** Every call of the method is in the virtual-member audit log: successes by the service, refusals here. */
export const AuditedVirtualMemberCall = (action: VirtualMemberAction) =>
  applyDecorators(SetMetadata(ACTION, action), UseInterceptors(VirtualMemberAuditInterceptor));
