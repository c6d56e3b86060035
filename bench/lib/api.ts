import { PLATFORM_ADMIN_ROLE, signAccountJwt } from '@app/auth';
import { BENCH_ACCOUNT_JWT } from './stack';

/** Both services answer `{ success, data }`; the bench only needs `data` and the status. */
export interface ApiClient {
  call<T = any>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<T>;
  raw(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any }>;
}

export function apiClient(port: number): ApiClient {
  const raw: ApiClient['raw'] = async (method, path, token, body, headers = {}) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return {
    raw,
    async call(method, path, token, body, headers) {
      const { status, json } = await raw(method, path, token, body, headers);
      if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
      return json.data;
    },
  };
}

/** Account JWTs as `npm run token` makes them, signed with the run's throw-away secret. */
export class Accounts {
  private readonly cache = new Map<string, string>();

  constructor(private readonly secret: string) {}

  async user(id: string, name = id): Promise<string> {
    return this.sign(id, name, []);
  }

  async admin(id = 'bench-staff'): Promise<string> {
    return this.sign(id, 'Bench Staff', [PLATFORM_ADMIN_ROLE]);
  }

  private async sign(sub: string, name: string, roles: string[]): Promise<string> {
    const key = `${sub}|${roles.join(',')}`;
    let token = this.cache.get(key);
    if (!token) {
      token = await signAccountJwt(this.secret, { sub, name, roles, expiresIn: '2h', ...BENCH_ACCOUNT_JWT });
      this.cache.set(key, token);
    }
    return token;
  }
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function inParallel<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], index);
      }
    }),
  );
  return results;
}
