import {
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { tenantOf } from '@app/auth';
import {
  ApiError,
  ENVELOPE_STYLE,
  EnvelopeStyle,
  RenderedBody,
  RenderedErrorResponse,
  routeStatus,
  toErrorView,
} from '@app/envelope';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import { IdempotencyStore } from './idempotency.store';
import { IdempotentCall } from './idempotent-call';

export interface IdempotentOptions {
  /** Whether a request without a key is refused (400) or simply runs without idempotency. */
  required: boolean;
  /** Where the key comes from; the default is the `Idempotency-Key` header. */
  keyFrom?: (req: Request) => unknown;
  /** How error details name the key (default `Idempotency-Key`); set it when `keyFrom` reads a body field. */
  keyName?: string;
}

const OPTIONS_KEY = 'idempotency:options';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
export const REPLAY_HEADER = 'Idempotent-Replayed';

type RequestWithCall = Request & { rawBody?: Buffer; idempotentCall?: IdempotentCall };

/** Marks a route idempotent. Its use case must finish with `IdempotentCall.complete` in its transaction. */
export function Idempotent(options: IdempotentOptions = { required: true }) {
  return applyDecorators(SetMetadata(OPTIONS_KEY, options), UseInterceptors(IdempotencyInterceptor));
}

/** The claimed key of the current request, or undefined when an optional key was not sent. */
export const IdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentCall | undefined =>
    context.switchToHttp().getRequest<RequestWithCall>().idempotentCall,
);

export function requestFingerprint(method: string, path: string, rawBody: Buffer | undefined): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n`)
    .update(rawBody ?? Buffer.alloc(0))
    .digest('hex');
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<IdempotentOptions>(OPTIONS_KEY, context.getHandler()) ?? { required: true };
    const req = context.switchToHttp().getRequest<RequestWithCall>();
    const res = context.switchToHttp().getResponse<Response>();
    const rawKey = options.keyFrom ? options.keyFrom(req) : req.headers['idempotency-key'];

    const keyName = options.keyName ?? 'Idempotency-Key';
    if (rawKey === undefined || rawKey === null || rawKey === '') {
      if (options.required)
        throw ApiError.badRequest(`${keyName} is required`, [{ field: keyName, problem: 'is required' }]);
      return next.handle();
    }
    if (typeof rawKey !== 'string' || !KEY_PATTERN.test(rawKey)) {
      throw ApiError.badRequest(`${keyName} must be 1-255 printable characters`, [
        { field: keyName, problem: 'must be 1-255 printable characters' },
      ]);
    }
    const scope = tenantOf(req);
    if (!scope) throw new Error('idempotent route without an authenticated tenant');
    const route = `${req.method} ${(req.route?.path as string | undefined) ?? req.path}`;
    const fingerprint = requestFingerprint(req.method, req.path, req.rawBody);
    const status = routeStatus(context);

    return from(this.store.claim(scope, rawKey, route, fingerprint)).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'replay') {
          res.setHeader(REPLAY_HEADER, 'true');
          if (outcome.status >= 400)
            throw new RenderedErrorResponse(outcome.status, outcome.body, { [REPLAY_HEADER]: 'true' });
          res.status(outcome.status);
          return of(new RenderedBody(outcome.body));
        }
        const call = new IdempotentCall(this.store, outcome.claim, status, (data) =>
          this.style.success(req, status, data),
        );
        req.idempotentCall = call;
        return next.handle().pipe(
          mergeMap(async (result) => {
            if (!call.completed || !(result instanceof RenderedBody)) {
              throw new Error(`idempotent route ${route} returned without completing its key inside its transaction`);
            }
            return result;
          }),
          catchError((error: unknown) => from(this.settleFailure(call, req, error))),
        );
      }),
    );
  }

  /** Deterministic 4xx answers are stored and replayed; 429 and 5xx release the key for a retry. */
  private async settleFailure(call: IdempotentCall, req: Request, error: unknown): Promise<never> {
    const view = toErrorView(error, this.style);
    const deterministic = view.status >= 400 && view.status < 500 && view.status !== 429;
    if (!deterministic) {
      await this.store.release(call.claim);
      throw error;
    }
    const body = this.style.error(req, view);
    await this.store.storeFailure(call.claim, view.status, body);
    throw new RenderedErrorResponse(view.status, body, (error as ApiError).headers ?? {});
  }
}
