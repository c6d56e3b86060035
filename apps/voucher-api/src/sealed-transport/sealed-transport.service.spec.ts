import { ApiError } from '@app/envelope';
import { MAX_JSON_DEPTH } from '@app/platform';
import { callPlaintext, sealToService, SealedUnit, startSealedUnit } from '../../test/sealed-unit-fixture';

async function refusal(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

describe('SealedTransportService', () => {
  let unit: SealedUnit;
  beforeAll(async () => {
    unit = await startSealedUnit();
  });
  afterAll(() => unit.close());

  const open = async (overrides: Record<string, unknown> = {}, now?: Date) =>
    unit.service.open(await sealToService(await callPlaintext(overrides)), now);

  describe('open', () => {
    it('turns a sealed call into the logical call, its secrets and body bytes included', async () => {
      const call = await open({ body: '{"b":[1,2]}' });
      expect(call).toMatchObject({
        method: 'POST',
        path: '/api/v1/open-platform/vouchers/redeem',
        authorization: 'Bearer sop_x',
        idempotencyKey: 'key-1',
        body: { b: [1, 2] },
      });
      expect(call.rawBody.toString()).toBe('{"b":[1,2]}');
      expect(call.answerKey.asymmetricKeyType).toBe('ec');
    });

    it('takes a call without a body as {} with no bytes, and one without secrets as without them', async () => {
      for (const body of [undefined, '']) {
        const call = await open({ body, headers: {} });
        expect([call.body, call.rawBody.length, call.authorization, call.idempotencyKey]).toEqual([{}, 0, undefined, undefined]);
      }
    });

    it(`accepts a seal up to ${300} seconds old or ahead, and refuses one a second beyond`, async () => {
      const now = new Date();
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const at = new Date(nowSeconds * 1000);
      await expect(open({ iat: nowSeconds - 300 }, at)).resolves.toBeDefined();
      await expect(open({ iat: nowSeconds + 300 }, at)).resolves.toBeDefined();
      for (const iat of [nowSeconds - 301, nowSeconds + 301]) {
        const error = await refusal(() => open({ iat }, at));
        expect([error.code, error.message]).toEqual([
          'SEALED_REQUEST_EXPIRED',
          `iat must lie within 300 seconds of the service's clock (${nowSeconds})`,
        ]);
      }
    });

    it.each([
      ['text that is not JSON', 'not json', 'The sealed plaintext is not JSON'],
      ['a JSON array', '[]', 'The sealed plaintext must be a call object'],
      ['JSON null', 'null', 'The sealed plaintext must be a call object'],
      ['a JSON number', '7', 'The sealed plaintext must be a call object'],
    ])('refuses a plaintext of %s', async (_what, plaintext, message) => {
      const error = await refusal(async () => unit.service.open(await sealToService(plaintext)));
      expect([error.code, error.message]).toEqual(['SEALED_REQUEST_MALFORMED', message]);
    });

    it('refuses a plaintext nested deeper than 8 levels, and takes one of 8', async () => {
      await expect(open({ headers: nested(7) })).rejects.toMatchObject({
        code: 'SEALED_REQUEST_MALFORMED',
        message: expect.stringMatching(/^The sealed call is invalid/),
      });
      const error = await refusal(() => open({ headers: nested(8) }));
      expect(error.message).toBe('The sealed plaintext must be a call object');
    });

    it('refuses an invalid call, naming each problem', async () => {
      const error = await refusal(() => open({ method: 'TRACE', jti: 'short' }));
      expect(error.code).toBe('SEALED_REQUEST_MALFORMED');
      expect(error.message).toMatch(/^The sealed call is invalid: /);
      expect(error.details?.map((d) => d.field).sort()).toEqual(['jti', 'method']);
    });

    it.each([
      ['text that is not JSON', '{', 'The sealed body is not JSON', [{ field: 'body', problem: 'must be JSON text' }]],
      ['a JSON string', '"text"', 'The sealed body must be a JSON object or array', [{ field: 'body', problem: 'must be a JSON object or array' }]],
      ['JSON null', 'null', 'The sealed body must be a JSON object or array', [{ field: 'body', problem: 'must be a JSON object or array' }]],
    ])('refuses a body of %s', async (_what, body, message, details) => {
      const error = await refusal(() => open({ body }));
      expect([error.code, error.message, error.details]).toEqual(['SEALED_REQUEST_MALFORMED', message, details]);
    });

    it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels, and takes an array body`, async () => {
      const error = await refusal(() => open({ body: JSON.stringify(nested(MAX_JSON_DEPTH + 1)) }));
      expect(error.message).toBe(`The sealed body nests deeper than ${MAX_JSON_DEPTH} levels`);
      expect((await open({ body: '[1]' })).body).toEqual([1]);
    });
  });

  describe('admit and refuseReplay', () => {
    it('admits a seal once: a second use is refused, before and after its guards', async () => {
      const call = await open();
      await unit.service.refuseReplay(call);
      await unit.service.admit(call);
      expect((await refusal(() => unit.service.refuseReplay(call))).code).toBe('SEALED_REQUEST_REPLAYED');
      expect((await refusal(() => unit.service.admit(call))).code).toBe('SEALED_REQUEST_REPLAYED');
    });

    it("refuses a seal that is stale on the database's clock", async () => {
      const error = await refusal(() => unit.service.admit({ jti: 'stale-seal-000001', iat: 1000 }));
      expect(error.code).toBe('SEALED_REQUEST_EXPIRED');
      expect(error.message).toMatch(/^iat must lie within 300 seconds of the service's clock \(\d{10}\)$/);
    });
  });
});
