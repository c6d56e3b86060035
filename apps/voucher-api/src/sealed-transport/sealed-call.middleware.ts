import { Inject, Injectable, Logger, NestMiddleware } from '@nestjs/common';
import { ENVELOPE_STYLE, type EnvelopeStyle, requestContext } from '@app/envelope';
import { setRateLimitHeaders } from '@app/rate-limits';
import { text, type NextFunction, type Request, type Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { VoucherConfig } from '../config/voucher.config';
import { RateLimiters } from '../rate-limits/rate-limiters';
import { VoucherErrors } from '../voucher-errors';
import { markSealed } from './sealed-call.marker';
import { JOSE_MEDIA_TYPE } from '../config/sealed-transport.mode';
import { OpenedCall, SealedAnswer, SealedTransportService } from './sealed-transport.service';

type RequestWithRawBody = Request & { rawBody?: Buffer };

/** Headers of the sealed route's own answer; every header of the logical answer travels inside the seal. */
const OUTER_HEADERS = new Set(['x-request-id']);
/** Framing of the logical answer that means nothing once it is sealed. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
/** The credentials of a call: beside a seal they would travel in clear, so they are refused there. */
const SEALED_ONLY_HEADERS = ['authorization', 'idempotency-key'];

type Outer = { path: string; headers: IncomingHttpHeaders };

/**
 * Opens a sealed call and turns the request into the logical call it carries, before the router sees
 * it: the router then matches the logical route, and its guards, rate limits, idempotency, validation,
 * envelope and metrics run exactly as for a plain call. The logical answer is captured at `end` and
 * sent sealed instead. Mounted on the sealed route only, after body parsing (which skips that route).
 */
@Injectable()
export class SealedCallMiddleware implements NestMiddleware {
  private readonly logger = new Logger('SealedTransport');
  private readonly readJose: ReturnType<typeof text>;

  constructor(
    private readonly sealed: SealedTransportService,
    private readonly limiters: RateLimiters,
    @Inject(ENVELOPE_STYLE) private readonly envelope: EnvelopeStyle,
    @Inject(VoucherConfig) config: VoucherConfig,
  ) {
    this.readJose = text({ type: () => true, limit: config.BODY_LIMIT });
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    await this.limitPerAddress(req, res);
    if (!req.is(JOSE_MEDIA_TYPE)) {
      throw VoucherErrors.error(
        'UNSUPPORTED_MEDIA_TYPE',
        `A sealed call is sent as ${JOSE_MEDIA_TYPE}: one compact JWE`,
      );
    }
    const clear = SEALED_ONLY_HEADERS.filter((name) => req.headers[name] !== undefined);
    if (clear.length > 0) {
      throw VoucherErrors.error(
        'SEALED_REQUEST_MALFORMED',
        `${clear.join(' and ')} must travel inside the seal, never beside it`,
      );
    }
    const call = await this.sealed.open((await this.readBody(req, res)).trim());
    // Checked above to hold no credential, so these are what the access line may show.
    const outer: Outer = { path: req.originalUrl, headers: { ...req.headers } };
    this.becomeLogicalCall(req, call);
    // A client that goes away mid-call: the access line, written on `close`, sees the outer headers too.
    res.prependOnceListener('close', () => (req.headers = outer.headers));
    this.sealAnswer(req, res, call, outer);
    next();
  }

  /**
   * Counts every call of the sealed route per client address before anything else is done with it: its
   * token is inside the seal, so nothing else limits a caller before the seal is opened.
   */
  private async limitPerAddress(req: Request, res: Response): Promise<void> {
    const outcome = await this.limiters.consume('sealed', req.ip ?? req.socket.remoteAddress ?? '');
    if (outcome.allowed) return;
    setRateLimitHeaders(res, outcome);
    throw VoucherErrors.error(
      'RATE_LIMITED',
      `Rate limit of ${outcome.limit} sealed calls per minute exceeded for this address`,
      { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
    );
  }

  private async readBody(req: Request, res: Response): Promise<string> {
    await new Promise<void>((resolve, reject) =>
      this.readJose(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
    ).catch((error: { type?: string }) => {
      if (error.type === 'entity.too.large') throw VoucherErrors.error('PAYLOAD_TOO_LARGE');
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The sealed call could not be read');
    });
    return typeof req.body === 'string' ? req.body : '';
  }

  /** The request from here on is the logical one; the outer headers keep what is not secret (Origin, User-Agent). */
  private becomeLogicalCall(req: Request, call: OpenedCall): void {
    const headers: IncomingHttpHeaders = { ...req.headers };
    delete headers['transfer-encoding'];
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(call.rawBody.length);
    if (call.authorization !== undefined) headers.authorization = call.authorization;
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    req.headers = headers;
    req.method = call.method;
    req.url = call.path;
    req.originalUrl = call.path;
    req.body = call.body;
    (req as RequestWithRawBody).rawBody = call.rawBody;
    markSealed(req, call);
  }

  /**
   * Holds back the logical answer and sends it sealed. Layers mounted before this one (a wire recorder
   * in tests) see the sealed route when the answer leaves; the access line, written on `close`, sees the
   * logical method and path and the outer headers, which hold neither the token nor the key.
   */
  private sealAnswer(req: Request, res: Response, call: OpenedCall, outer: Outer): void {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (typeof chunk === 'string')
        chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const end = res.end.bind(res) as (chunk?: unknown, callback?: () => void) => Response;
    let taken = false;
    // A handler that writes its head itself sets what the sealed answer will say, nothing on the wire.
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      res.statusCode = status;
      const headers = rest.find((item) => typeof item === 'object' && item !== null && !Array.isArray(item));
      for (const [name, value] of Object.entries((headers ?? {}) as Record<string, string>)) res.setHeader(name, value);
      return res;
    }) as Response['writeHead'];
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      keep(chunk, encoding);
      if (typeof encoding === 'function') (encoding as () => void)();
      else if (typeof callback === 'function') (callback as () => void)();
      return true;
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      if (taken) return res;
      taken = true;
      // end(callback), end(chunk, callback) and end(chunk, encoding, callback) are all Node's.
      const callback = typeof args[args.length - 1] === 'function' ? (args.pop() as () => void) : undefined;
      const [chunk, encoding] = args;
      keep(chunk, encoding);
      const answer = this.takeAnswer(res, Buffer.concat(chunks));
      // The logical call is over: whatever is logged from here on sees the outer headers only.
      req.headers = outer.headers;
      // Node's own end writes the head through writeHead: from here on it is the real one again.
      delete (res as Partial<Response>).writeHead;
      const send = (status: number, contentType: string, body: string) => {
        res.statusCode = status;
        res.setHeader('Content-Type', contentType);
        res.setHeader('Cache-Control', 'no-store');
        req.method = 'POST';
        req.originalUrl = outer.path;
        end(body, callback);
        req.method = call.method;
        req.originalUrl = call.path;
      };
      this.sealed.seal(answer, call.answerKey).then(
        (jwe) => send(200, JOSE_MEDIA_TYPE, jwe),
        (error: Error) => {
          // The key was proven when the call was opened, so this is the service's fault. The answer
          // cannot leave in clear: the caller learns only that it is lost, and how to read it again.
          this.logger.error(
            { requestId: requestContext(req).id, reason: error.message },
            'a sealed answer could not be sealed',
          );
          const { status, message } = VoucherErrors.codes.SEALED_ANSWER_FAILED;
          const body = this.envelope.error(req, { status, code: 'SEALED_ANSWER_FAILED', message });
          send(status, 'application/json; charset=utf-8', body);
        },
      );
      return res;
    }) as Response['end'];
  }

  /** The logical answer's status, headers and body; its headers are removed from the outer answer. */
  private takeAnswer(res: Response, body: Buffer): SealedAnswer {
    const headers: Record<string, string> = {};
    for (const name of res.getHeaderNames()) {
      const value = res.getHeader(name);
      if (!FRAMING_HEADERS.has(name) && value !== undefined) {
        headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      if (!OUTER_HEADERS.has(name)) res.removeHeader(name);
    }
    return { status: res.statusCode, headers, body: body.toString('utf8') };
  }
}
