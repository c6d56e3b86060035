import { checkoutRelease, expectReleaseReported, readinessInfo } from '@app/testing';
import request from 'supertest';
import { startVoucherApp, VoucherTestContext } from './app-context';

describe('voucher-api foundation', () => {
  let ctx: VoucherTestContext;

  beforeAll(async () => {
    ctx = await startVoucherApp();
  });
  afterAll(() => ctx.close());

  it('answers readiness 200 naming the coordination mode, with what that mode depends on up', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.info).toEqual(readinessInfo(ctx.config.coordinationBackend));
  });

  it('answers liveness 200 with the release it runs, version and commit, also reported in app_build_info', async () => {
    await expectReleaseReported(ctx.app.getHttpServer(), checkoutRelease('voucher-api'));
  });

  it('answers without an ETag, so no body is hashed for a validator nobody sends back', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/health/live').expect(200);
    expect(res.headers.etag).toBeUndefined();
  });

  it('renders an unknown route as a 404 voucher envelope with request id and duration', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/api/v1/open-platform/nope').expect(404);
    expect(res.body).toMatchObject({ success: false, code: 404, error: { code: 'NOT_FOUND' } });
    expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
    expect(res.body.meta.duration).toMatch(/^\d+ms$/);
    expect(new Date(res.body.meta.timestamp).toISOString()).toBe(res.body.meta.timestamp);
  });

  it('exposes request metrics by route pattern and status in Prometheus format', async () => {
    await request(ctx.app.getHttpServer()).get('/health/live');
    const res = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/health\/live",status="200"\} \d+/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
  });

  it('counts each request once in the series of its method, route pattern and status', async () => {
    const server = ctx.app.getHttpServer();
    const live = '{method="GET",route="/health/live",status="200"}';
    const unknown = '{method="GET",route="unmatched",status="404"}';
    const count = async (series: string) => {
      const { text } = await request(server).get('/metrics').expect(200);
      return Number(
        text
          .split('\n')
          .find((line: string) => line.startsWith(series))
          ?.split(' ')[1] ?? 0,
      );
    };
    const before = [
      await count(`http_requests_total${live}`),
      await count(`http_request_duration_seconds_count${live}`),
    ];
    const unknownBefore = await count(`http_requests_total${unknown}`);
    for (let i = 0; i < 3; i++) await request(server).get('/health/live').expect(200);
    await request(server).get('/api/v1/open-platform/nope').expect(404);
    await request(server).get('/api/v1/open-platform/other').expect(404);
    expect(await count(`http_requests_total${live}`)).toBe(before[0] + 3);
    expect(await count(`http_request_duration_seconds_count${live}`)).toBe(before[1] + 3);
    // Unknown paths share one `unmatched` series: the raw URL never becomes a label.
    expect(await count(`http_requests_total${unknown}`)).toBe(unknownBefore + 2);
    const { text } = await request(server).get('/metrics').expect(200);
    expect(text).not.toContain('/api/v1/open-platform/nope');
  });
});
