import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { seedApplication, SeededApplication, seedUser, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError } from './runtime-fixtures';

describe('holder: backpack, sends, inbox, claim and cancel', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let owner: Record<string, string>;
  let sender: Record<string, string>;
  let recipient: Record<string, string>;
  let stranger: Record<string, string>;

  beforeAll(async () => {
    // Each test sets up its own template; the runtime's per-token review limits are not under test here.
    ctx = await startVoucherApp({
      RATE_LIMITS: 'templates.create=1000,templates.submit=1000,templates.lifecycle=1000',
    });
    app = await seedApplication(ctx, { ownerId: 'holder-owner' });
    owner = bearer(await ctx.jwt('holder-owner', 'Owner'));
    sender = bearer(await ctx.jwt('holder-sender', 'Sender'));
    recipient = bearer(await ctx.jwt('holder-recipient', 'Recipient'));
    stranger = bearer(await ctx.jwt('holder-stranger', 'Stranger'));
    for (const id of ['holder-sender', 'holder-recipient', 'holder-stranger']) await seedUser(ctx, id);
  });
  afterAll(() => ctx.close());

  const http = () => request(ctx.app.getHttpServer());

  async function allocation(quantity: number, templateOverrides: Record<string, unknown> = {}) {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 0, ...templateOverrides });
    const res = await http()
      .post(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .set(owner)
      .send({ templateId, recipientUserId: 'holder-sender', quantity, idempotencyKey: randomUUID() })
      .expect(201);
    return { allocationId: res.body.data.id as string, templateId };
  }

  const sendTo = (allocationId: string, recipientUserId = 'holder-recipient', auth = sender) =>
    http().post(`${API}/holder/backpack/${allocationId}/sends`).set(auth).send({ recipient_user_id: recipientUserId });

  async function counters(allocationId: string) {
    const res = await http().get(`${API}/holder/backpack`).query({ pageSize: 100 }).set(sender).expect(200);
    const item = (res.body.data.items as Array<Record<string, unknown>>).find((a) => a.id === allocationId)!;
    return {
      remaining: item.remaining,
      sendingCount: item.sendingCount,
      claimedCount: item.claimedCount,
      status: item.status,
    };
  }

  it('shows the sender’s allocations in the backpack and nobody else’s', async () => {
    const { allocationId, templateId } = await allocation(2);
    const mine = await http().get(`${API}/holder/backpack`).set(sender).expect(200);
    expect(mine.body.data.items[0]).toMatchObject({
      id: allocationId,
      templateId,
      quantity: 2,
      remaining: 2,
      template: { id: templateId, name: 'Coffee voucher', status: 'active' },
    });
    const theirs = await http().get(`${API}/holder/backpack`).set(stranger).expect(200);
    expect(theirs.body.data).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
  });

  it('sends one unit (201): remaining −1, sendingCount +1; the recipient sees it in the inbox', async () => {
    const { allocationId } = await allocation(2);
    const res = await sendTo(allocationId).expect(201);
    expect(res.body).toMatchObject({ success: true, code: 201 });
    expect(res.body.data).toEqual({
      id: expect.any(String),
      allocation_id: allocationId,
      sender_user_id: 'holder-sender',
      recipient_user_id: 'holder-recipient',
      status: 'sending',
      voucher_id: null,
      created_at: expect.any(String),
      claimed_at: null,
      cancelled_at: null,
    });
    expect(await counters(allocationId)).toEqual({ remaining: 1, sendingCount: 1, claimedCount: 0, status: 'active' });
    const inbox = await http().get(`${API}/holder/inbox`).set(recipient).expect(200);
    expect(inbox.body.data.items.map((s: { id: string }) => s.id)).toContain(res.body.data.id);
  });

  it('refuses to send beyond the allocation with 409 INSUFFICIENT_STOCK', async () => {
    const { allocationId } = await allocation(1);
    await sendTo(allocationId).expect(201);
    expectError(await sendTo(allocationId), 409, 'INSUFFICIENT_STOCK');
    expect(await counters(allocationId)).toMatchObject({ remaining: 0, sendingCount: 1 });
  });

  it('answers 404 when someone other than the sender sends from an allocation, and 400 for an unknown recipient', async () => {
    const { allocationId } = await allocation(1);
    expectError(await sendTo(allocationId, 'holder-recipient', stranger), 404, 'NOT_FOUND');
    expectError(await sendTo(allocationId, 'holder-recipient', owner), 404, 'NOT_FOUND');
    const unknown = await sendTo(allocationId, 'never-seen-user');
    expectError(unknown, 400, 'VALIDATION_FAILED');
    expectError(
      await http().post(`${API}/holder/backpack/${allocationId}/sends`).set(sender).send({}),
      400,
      'VALIDATION_FAILED',
    );
    expect(await counters(allocationId)).toMatchObject({ remaining: 1, sendingCount: 0 });
  });

  it('sends once under an Idempotency-Key: a retry answers the first send and takes no second unit', async () => {
    const { allocationId } = await allocation(3);
    const key = `send-${randomUUID()}`;
    const keyed = () => sendTo(allocationId).set('Idempotency-Key', key);
    const first = await keyed().expect(201);
    const again = await keyed().expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(await counters(allocationId)).toMatchObject({ remaining: 2, sendingCount: 1 });
    // Without a key each call is another send.
    await sendTo(allocationId).expect(201);
    expect(await counters(allocationId)).toMatchObject({ remaining: 1, sendingCount: 2 });
  });

  it('sends exactly one unit when ten sends with one Idempotency-Key race', async () => {
    const { allocationId } = await allocation(5);
    const key = `race-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => sendTo(allocationId).set('Idempotency-Key', key)),
    );
    const sent = answers.filter((res) => res.status === 201);
    expect(new Set(sent.map((res) => res.body.data.id)).size).toBe(1);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expectError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
    }
    expect(await counters(allocationId)).toMatchObject({ remaining: 4, sendingCount: 1 });
  });

  it('refuses an unknown recipient saying how a user becomes known, and stores no refusal against the key', async () => {
    const { allocationId } = await allocation(1);
    const key = `later-${randomUUID()}`;
    const refused = await sendTo(allocationId, 'later-friend').set('Idempotency-Key', key);
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.message).toMatch(
      /recipient_user_id is not a known user: a user becomes known with their first call/,
    );
    await http()
      .get(`${API}/holder/inbox`)
      .set(bearer(await ctx.jwt('later-friend', 'Later')))
      .expect(200);
    const sent = await sendTo(allocationId, 'later-friend').set('Idempotency-Key', key).expect(201);
    expect(sent.headers['idempotent-replayed']).toBeUndefined();
    expect(sent.body.data).toMatchObject({ recipient_user_id: 'later-friend', status: 'sending' });
  });

  it('claims once (201): a voucher for the recipient, claimedCount +1; a second claim gives 409 SEND_NOT_CLAIMABLE', async () => {
    const { allocationId, templateId } = await allocation(2);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    const claim = await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient).expect(201);
    expect(claim.body.data.send).toMatchObject({
      id: sendId,
      status: 'claimed',
      voucher_id: claim.body.data.voucher.id,
    });
    expect(claim.body.data.voucher).toMatchObject({
      template_id: templateId,
      status: 'available',
      recipient_user_id: 'holder-recipient',
    });
    expect(await counters(allocationId)).toEqual({ remaining: 1, sendingCount: 0, claimedCount: 1, status: 'active' });
    expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient), 409, 'SEND_NOT_CLAIMABLE');
  });

  it('answers 404 to a claim by anyone but the recipient (the sender included)', async () => {
    const { allocationId } = await allocation(1);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(stranger), 404, 'NOT_FOUND');
    expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(sender), 404, 'NOT_FOUND');
    expectError(await http().post(`${API}/holder/sends/not-a-send/claim`).set(recipient), 404, 'NOT_FOUND');
  });

  it('cancels an unclaimed send (sender only): the unit returns, and the send can no longer be claimed', async () => {
    const { allocationId } = await allocation(1);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    expectError(await http().post(`${API}/holder/sends/${sendId}/cancel`).set(recipient), 404, 'NOT_FOUND');
    const cancelled = await http().post(`${API}/holder/sends/${sendId}/cancel`).set(sender).expect(200);
    expect(cancelled.body.data).toMatchObject({ id: sendId, status: 'cancelled', cancelled_at: expect.any(String) });
    expect(await counters(allocationId)).toEqual({ remaining: 1, sendingCount: 0, claimedCount: 0, status: 'active' });
    expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient), 409, 'SEND_NOT_CLAIMABLE');
    expectError(await http().post(`${API}/holder/sends/${sendId}/cancel`).set(sender), 409, 'SEND_NOT_CANCELLABLE');
  });

  it('refuses to cancel a claimed send with 409 and marks a fully claimed allocation exhausted', async () => {
    const { allocationId } = await allocation(1);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient).expect(201);
    expectError(await http().post(`${API}/holder/sends/${sendId}/cancel`).set(sender), 409, 'SEND_NOT_CANCELLABLE');
    expect(await counters(allocationId)).toEqual({
      remaining: 0,
      sendingCount: 0,
      claimedCount: 1,
      status: 'exhausted',
    });
  });

  it('applies the template’s per-user limit to claims (409 PER_USER_LIMIT_REACHED; the send stays claimable)', async () => {
    const { allocationId } = await allocation(2, { per_user_limit: 1 });
    const first = (await sendTo(allocationId).expect(201)).body.data.id as string;
    const second = (await sendTo(allocationId).expect(201)).body.data.id as string;
    await http().post(`${API}/holder/sends/${first}/claim`).set(recipient).expect(201);
    expectError(await http().post(`${API}/holder/sends/${second}/claim`).set(recipient), 409, 'PER_USER_LIMIT_REACHED');
    expect(await counters(allocationId)).toEqual({ remaining: 0, sendingCount: 1, claimedCount: 1, status: 'active' });
    await http().post(`${API}/holder/sends/${second}/cancel`).set(sender).expect(200);
  });

  it('refuses sends and claims while the template is paused (409 TEMPLATE_NOT_ACTIVE)', async () => {
    const { allocationId, templateId } = await allocation(2);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    await http().post(`${API}/vouchers/templates/${templateId}/pause`).set(bearer(app.token)).expect(200);
    expectError(await sendTo(allocationId), 409, 'TEMPLATE_NOT_ACTIVE');
    expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient), 409, 'TEMPLATE_NOT_ACTIVE');
    await http().post(`${API}/vouchers/templates/${templateId}/resume`).set(bearer(app.token)).expect(200);
    await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient).expect(201);
  });

  it('refuses sends and claims while the application is disabled (403 APPLICATION_DISABLED)', async () => {
    const { allocationId } = await allocation(2);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    const disable = (status: string) =>
      http().patch(`${API}/applications/${app.applicationId}`).set(owner).send({ status }).expect(200);
    await disable('disabled');
    try {
      expectError(await sendTo(allocationId), 403, 'APPLICATION_DISABLED');
      expectError(await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient), 403, 'APPLICATION_DISABLED');
    } finally {
      await disable('active');
    }
    await http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient).expect(201);
  });

  it('creates exactly one voucher when 50 claims of one send race', async () => {
    const { allocationId } = await allocation(1);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    const server = ctx.app.getHttpServer();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => request(server).post(`${API}/holder/sends/${sendId}/claim`).set(recipient)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const others = results.filter((r) => r.status !== 201);
    expect(others).toHaveLength(49);
    for (const r of others) expectError(r, 409, 'SEND_NOT_CLAIMABLE');
    const [row]: Array<{ count: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT count(*) AS count FROM vouchers WHERE send_id = $1`, [sendId]);
    expect(Number(row.count)).toBe(1);
    expect(await counters(allocationId)).toEqual({
      remaining: 0,
      sendingCount: 0,
      claimedCount: 1,
      status: 'exhausted',
    });
  });

  it('keeps the counters balanced when a claim and a cancel of one send race', async () => {
    const { allocationId } = await allocation(1);
    const sendId = (await sendTo(allocationId).expect(201)).body.data.id as string;
    const [claim, cancel] = await Promise.all([
      http().post(`${API}/holder/sends/${sendId}/claim`).set(recipient),
      http().post(`${API}/holder/sends/${sendId}/cancel`).set(sender),
    ]);
    expect([claim.status, cancel.status].sort()).toEqual(claim.status === 201 ? [201, 409] : [200, 409]);
    const c = await counters(allocationId);
    expect((c.remaining as number) + (c.sendingCount as number) + (c.claimedCount as number)).toBe(1);
    expect(c.sendingCount).toBe(0);
  });

  it('refuses holder routes without an account JWT (401) and with an application token (401)', async () => {
    expectError(await http().get(`${API}/holder/backpack`), 401, 'UNAUTHORIZED');
    expectError(await http().get(`${API}/holder/inbox`).set(bearer(app.token)), 401, 'UNAUTHORIZED');
  });
});
