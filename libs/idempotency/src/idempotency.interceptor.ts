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
import { ApiHeader } from '@nestjs/swagger';
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
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import {
  failureDisposition,
  isAbsentKey,
  KEY_PATTERN,
  keyOfRequest,
  requestFingerprint,
  routeOf,
  scopeOf,
} from './idempotency-decisions';
import { IdempotencyStore, Replay } from './idempotency.store';
import { MarksHandlerStart, REQUEST_CALL } from './handler-execution';
import { IdempotentCall, IdempotentReplay } from './idempotent-call';
import type { IdempotencyTarget } from './idempotency-target';

export interface IdempotentOptions {
  /** Whether a request without a key is refused (400) or simply runs without idempotency. */
  required: boolean;
  /** Where the key comes from; the default is the `Idempotency-Key` header. */
  keyFrom?: (req: Request) => unknown;
  /** How error details name the key (default `Idempotency-Key`); set it when `keyFrom` reads a body field. */
  keyName?: string;
  /**
   * `before` (default): the key is claimed in a short transaction of its own before the handler runs.
   * `in-transaction`: the use case claims it with `IdempotentCall.begin` as the first statement of its
   * own transaction, so a request costs no commit besides the business one.
   */
  claim?: 'before' | 'in-transaction';
  /** A route-specific note appended to the documented header (e.g. that a reverse needs a new key). */
  keyHint?: string;
}

// Stryker disable next-line StringLiteral: a private metadata key, written and read through this one constant
const OPTIONS_KEY = 'idempotency:options';
export const REPLAY_HEADER = 'Idempotent-Replayed';

type RequestWithCall = Request & { rawBody?: Buffer; [REQUEST_CALL]?: IdempotentCall };

/** What the API documents say about the header; the interceptor and the store enforce exactly this. */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Your own unique id of this operation, e.g. a UUID: 1–255 printable ASCII characters (space to `~`). Keys are ' +
  'scoped to the caller and kept 24 hours (IDEMPOTENCY_TTL_MS). A retry with the same key and the same body gets ' +
  'the stored answer again with `Idempotent-Replayed: true`; the same key with another body or on another route ' +
  'gets 409 `IDEMPOTENCY_KEY_REUSED`, and while the first request with it is still running 409 `IDEMPOTENCY_KEY_IN_USE`.';

/**
 * Marks a route idempotent and documents its `Idempotency-Key` header (a key read from the body is
 * documented by its DTO). The use case must finish with `IdempotentCall.complete` in its transaction.
 */
export function Idempotent(options: IdempotentOptions = { required: true }) {
  const decorators = [MarksHandlerStart(), SetMetadata(OPTIONS_KEY, options), UseInterceptors(IdempotencyInterceptor)];
  if (!options.keyFrom) {
    decorators.push(
      ApiHeader({
        name: 'Idempotency-Key',
        required: options.required,
        description: options.keyHint
          ? `${options.keyHint}. ${IDEMPOTENCY_KEY_DESCRIPTION}`
          : IDEMPOTENCY_KEY_DESCRIPTION,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: KEY_PATTERN.source },
      }),
    );
  }
  return applyDecorators(...decorators);
}

/** The claimed key of the current request, or undefined when an optional key was not sent. */
export const IdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentCall | undefined =>
    idempotentCallOf(context.switchToHttp().getRequest<Request>()),
);

/** What `@IdempotencyKey()` hands the handler, for a service's own parameter decorator. */
export function idempotentCallOf(req: Request): IdempotentCall | undefined {
  return (req as RequestWithCall).idempotentCall;
}

/**
 * Whether an `Idempotency-Key` header route runs under a key for this request (or refuses a malformed
 * one with 400): the same test the interceptor applies, for a guard that must know it beforehand.
 */
export function carriesIdempotencyKey(req: Request): boolean {
  return !isAbsentKey(req.headers['idempotency-key']);
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
    const key = keyOfRequest(rawKey, options.required, options.keyName ?? 'Idempotency-Key');
    if (key === undefined) return next.handle();

    const scope = scopeOf(tenantOf(req));
    const route = routeOf(req.method, req.route?.path as string | undefined, req.path);
    const target: IdempotencyTarget = {
      scope,
      key,
      route,
      fingerprint: requestFingerprint(req.method, req.path, req.rawBody),
    };
    const status = routeStatus(context);
    const render = (data: unknown) => this.style.success(req, status, data);

    if (options.claim === 'in-transaction') {
      const call = new IdempotentCall(this.store, target, undefined, status, render);
      req.idempotentCall = call;
      return this.handleClaimed(call, req, res, next);
    }
    return from(this.store.claim(scope, key, route, target.fingerprint)).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'replay') return of(this.replay(outcome, res));
        const call = new IdempotentCall(this.store, target, outcome.claim, status, render);
        req.idempotentCall = call;
        return this.handleClaimed(call, req, res, next);
      }),
    );
  }

  private handleClaimed(call: IdempotentCall, req: Request, res: Response, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      mergeMap(async (result) => {
        if (!call.completed || !(result instanceof RenderedBody)) {
          throw new Error(
            `idempotent route ${call.target.route} returned without completing its key inside its transaction`,
          );
        }
        return result;
      }),
      catchError((error: unknown) => {
        if (error instanceof IdempotentReplay) return of(this.replay(error.replay, res));
        // Stryker disable next-line ConditionalExpression: recording a turned-away request's 409 finds the same 409 (it holds no claim)
        if (call.turnedAway) throw error;
        return from(this.settleFailure(call, call.handlerStarted, req, res, error));
      }),
    );
  }

  private replay(outcome: Replay, res: Response): RenderedBody {
    res.setHeader(REPLAY_HEADER, 'true');
    if (outcome.status >= 400) {
      throw new RenderedErrorResponse(outcome.status, outcome.body, { [REPLAY_HEADER]: 'true' });
    }
    res.status(outcome.status);
    return new RenderedBody(outcome.body);
  }

  /**
   * Deterministic 4xx answers of a handler that ran are stored and replayed; a refusal before the
   * handler ran (validation), a 429 and a 5xx release the key for a retry (`failureDisposition`). A
   * claim made inside the use case's transaction went away with its rollback, so the failure is
   * recorded anew, unless a request with the same key got in first: then its answer is the one given.
   */
  private async settleFailure(
    call: IdempotentCall,
    handlerStarted: boolean,
    req: Request,
    res: Response,
    error: unknown,
  ): Promise<RenderedBody> {
    const view = toErrorView(error, this.style);
    const claim = call.claimedUpFront ? call.claim : undefined;
    if (failureDisposition(view.status, handlerStarted) === 'release') {
      if (claim) {
        await this.store.release(claim);
        throw error;
      }
      // As with a claim made up front, the key is judged before the body: another request's key
      // answers 409 REUSED, the same request's stored answer is replayed.
      // Stryker disable next-line ConditionalExpression: a use case that began and failed transiently has no stored answer to find
      if (!handlerStarted) {
        const earlier = await this.store.storedAnswer(call.target);
        if (earlier) return this.replay(earlier, res);
      }
      throw error;
    }
    const body = this.style.error(req, view);
    if (claim) {
      await this.store.storeFailure(claim, view.status, body);
    } else {
      const earlier = await this.store.recordFailure(call.target, view.status, body);
      if (earlier) return this.replay(earlier, res);
    }
    throw new RenderedErrorResponse(view.status, body, (error as ApiError).headers ?? {});
  }
}
