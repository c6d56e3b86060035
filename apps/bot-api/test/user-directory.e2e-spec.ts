import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotTestContext, startBotApp } from './app-context';

/** Every account-JWT call records the caller; an unchanged name is not written again for a while. */
describe('user directory upsert on account calls', () => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp();
  });
  afterAll(() => ctx.close());

  const nameOf = async (id: string): Promise<string | undefined> => {
    const rows: Array<{ name: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT name FROM users WHERE id = $1`, [id]);
    return rows[0]?.name;
  };
  const callAs = async (id: string, name: string) =>
    request(ctx.app.getHttpServer())
      .get('/api/v1/bots/my')
      .set('Authorization', `Bearer ${await ctx.jwt(id, name)}`)
      .expect(200);

  it('records a new caller on its first call and a new name on the first call that carries it', async () => {
    await callAs('carol', 'Carol');
    expect(await nameOf('carol')).toBe('Carol');
    // Changed behind the service's back: an unchanged name in the token is not written again...
    await ctx.app.get(DataSource).query(`UPDATE users SET name = 'Edited' WHERE id = 'carol'`);
    await callAs('carol', 'Carol');
    expect(await nameOf('carol')).toBe('Edited');
    // ...but a new name is, at once.
    await callAs('carol', 'Carol Smith');
    expect(await nameOf('carol')).toBe('Carol Smith');
  });

  it('records parallel first calls of many accounts once each', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `parallel-${i}`);
    await Promise.all(ids.map((id) => callAs(id, `Name ${id}`)));
    const rows: Array<{ id: string; name: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT id, name FROM users WHERE id = ANY($1) ORDER BY id`, [ids]);
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row.name).toBe(`Name ${row.id}`);
  });
});
