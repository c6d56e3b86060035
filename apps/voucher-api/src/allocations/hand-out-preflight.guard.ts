import { CanActivate, ExecutionContext, Injectable, mixin, Type } from '@nestjs/common';
import { createValidationPipe, Database } from '@app/platform';
import type { Request } from 'express';
import { UsersStore } from '../users/users.store';
import { requireKnownRecipient } from './known-recipient';

const validation = createValidationPipe();

/**
 * The refusals of a hand-out of stock (allocation, send) that are answered before its idempotency key
 * is claimed, so that none is stored against the key and a retry with the same key runs once the caller
 * fixed the cause (Stripe keeps only results of calls that started executing): a body that fails
 * validation, every unknown field named, and a recipient the service does not know yet, which only
 * becomes known (never unknown again), so this check cannot turn away the replay of a stored success.
 * Guards run before the idempotency interceptor; the route's pipe and use case check both again.
 */
export function HandOutPreflight<T extends object>(body: Type<T>, recipientField: keyof T & string): Type<CanActivate> {
  @Injectable()
  class HandOutPreflightGuard implements CanActivate {
    constructor(
      private readonly database: Database,
      private readonly users: UsersStore,
    ) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const req = context.switchToHttp().getRequest<Request>();
      const dto = (await validation.transform(req.body, { type: 'body', metatype: body })) as T;
      await requireKnownRecipient(this.users, this.database, String(dto[recipientField]), recipientField);
      return true;
    }
  }
  return mixin(HandOutPreflightGuard);
}
