import { Controller, Get, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { VoucherConfig } from '../config/voucher.config';
import { ApiErrors, VoucherErrors } from '../voucher-errors';
import { SealCipher } from './seal-cipher';
import { JOSE_MEDIA_TYPE, SEALED_ROUTE } from '../config/sealed-transport.mode';

const JWK_SET_MEDIA_TYPE = 'application/jwk-set+json';

@ApiTags('sealed transport')
@Controller()
export class SealedTransportController {
  private readonly on: boolean;

  constructor(
    private readonly cipher: SealCipher,
    @Inject(VoucherConfig) config: VoucherConfig,
  ) {
    this.on = config.SEALED_TRANSPORT !== 'off';
  }

  @Get('.well-known/jwks.json')
  @ApiOperation({
    summary: 'The public keys sealed calls are encrypted to, newest first (seal to the first)',
    description:
      'A JWK Set, not in the envelope, so that any JOSE library reads it. 404 while sealed transport is off.',
  })
  @ApiResponse({
    status: 200,
    description: 'The JWK Set',
    content: { [JWK_SET_MEDIA_TYPE]: { schema: { type: 'object' } } },
  })
  @ApiErrors({ code: 'SEALED_TRANSPORT_OFF', when: 'SEALED_TRANSPORT=off' })
  jwks(@Res() res: Response): void {
    if (!this.on) throw VoucherErrors.error('SEALED_TRANSPORT_OFF');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type(JWK_SET_MEDIA_TYPE).send(JSON.stringify(this.cipher.jwks));
  }

  /**
   * While sealed transport is on, SealedCallMiddleware answers this route before the router reaches
   * it (it re-dispatches the opened call); this handler answers only while it is off.
   */
  @Post(SEALED_ROUTE.slice(1))
  @HttpCode(200)
  @ApiOperation({
    summary: 'Any runtime call, sealed: a compact JWE in, a compact JWE of the whole answer out',
    description:
      'The body is a compact JWE (alg ECDH-ES+A256KW, enc A256GCM, kid of a key of /.well-known/jwks.json) of the ' +
      "call: method, path, Authorization and Idempotency-Key headers, body, iat, jti and the caller's ephemeral " +
      'public key. The call runs exactly as if sent plain; its answer (status, headers, body) comes back as a ' +
      'compact JWE to that key, with status 200. Refusals of the seal itself answer in the envelope, in clear. ' +
      'See docs/sealed-transport.md.',
  })
  @ApiConsumes(JOSE_MEDIA_TYPE)
  @ApiBody({ schema: { type: 'string', description: 'A compact JWE' } })
  @ApiResponse({
    status: 200,
    description: 'The sealed answer of the logical call, whatever its own status',
    content: { [JOSE_MEDIA_TYPE]: { schema: { type: 'string' } } },
  })
  @ApiErrors(
    { code: 'SEALED_TRANSPORT_OFF', when: 'SEALED_TRANSPORT=off' },
    { code: 'SEALED_REQUEST_MALFORMED', when: 'not a compact JWE, or its plaintext is not a valid call' },
    { code: 'SEALED_ALGORITHM_NOT_ALLOWED', when: 'alg or enc other than ECDH-ES+A256KW / A256GCM' },
    { code: 'SEALED_KEY_UNKNOWN', when: 'kid missing or not a key of the JWKS' },
    { code: 'SEALED_REQUEST_UNREADABLE', when: 'altered, or sealed to another key' },
    { code: 'SEALED_REQUEST_EXPIRED', when: 'iat outside SEALED_MAX_AGE_SECONDS of the server clock' },
    { code: 'SEALED_ANSWER_KEY_UNUSABLE', when: 'response_key is off its curve, or an X25519 point of small order' },
    { code: 'PAYLOAD_TOO_LARGE', when: 'the JWE exceeds BODY_LIMIT' },
    { code: 'UNSUPPORTED_MEDIA_TYPE', when: `Content-Type is not ${JOSE_MEDIA_TYPE}` },
    { code: 'RATE_LIMITED', when: 'too many sealed calls from one client address (RATE_LIMITS sealed, per minute)' },
    {
      code: 'SEALED_ANSWER_FAILED',
      when: 'the call ran but its answer could not be sealed: retry with its idempotency-key',
    },
    { code: 'INTERNAL_ERROR', when: 'an unexpected failure before the call was opened; safe to retry' },
  )
  sealedWhileOff(): never {
    throw VoucherErrors.error('SEALED_TRANSPORT_OFF');
  }
}
