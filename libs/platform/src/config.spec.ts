import { ConfigError, loadConfig, ServiceConfig } from './config';

describe('loadConfig', () => {
  it('fills every variable with its development default', () => {
    const config = loadConfig(ServiceConfig, {});
    expect(config).toMatchObject({
      DB_HOST: '127.0.0.1',
      DB_PORT: 5432,
      REDIS_URL: 'redis://127.0.0.1:6379',
      MIGRATIONS_RUN: true,
    });
    expect(config.dbAutoCreate).toBe(true);
  });

  it('converts numbers and booleans from their string form', () => {
    const config = loadConfig(ServiceConfig, { DB_PORT: '6543', MIGRATIONS_RUN: 'false', DB_AUTO_CREATE: '0' });
    expect(config.DB_PORT).toBe(6543);
    expect(config.MIGRATIONS_RUN).toBe(false);
    expect(config.dbAutoCreate).toBe(false);
  });

  it('listens on loopback outside production unless HOST says otherwise, and on every interface in production', () => {
    const production = { NODE_ENV: 'production', COORDINATION_BACKEND: 'redis' };
    expect(loadConfig(ServiceConfig, {}).listenHost).toBe('127.0.0.1');
    expect(loadConfig(ServiceConfig, { NODE_ENV: 'test' }).listenHost).toBe('127.0.0.1');
    expect(loadConfig(ServiceConfig, { HOST: '0.0.0.0' }).listenHost).toBe('0.0.0.0');
    expect(loadConfig(ServiceConfig, production).listenHost).toBeUndefined();
    expect(loadConfig(ServiceConfig, { ...production, HOST: '10.0.0.5' }).listenHost).toBe('10.0.0.5');
  });

  it('turns database auto-creation off by default in production', () => {
    expect(loadConfig(ServiceConfig, { NODE_ENV: 'production', COORDINATION_BACKEND: 'redis' }).dbAutoCreate).toBe(
      false,
    );
  });

  it('refuses production without an explicit coordination backend, and any backend but redis or postgres', () => {
    expect(() => loadConfig(ServiceConfig, { NODE_ENV: 'production' })).toThrow(/COORDINATION_BACKEND/);
    expect(() => loadConfig(ServiceConfig, { COORDINATION_BACKEND: 'memcached' })).toThrow(
      'COORDINATION_BACKEND must be redis or postgres',
    );
    expect(
      loadConfig(ServiceConfig, { NODE_ENV: 'production', COORDINATION_BACKEND: 'postgres' }).coordinationBackend,
    ).toBe('postgres');
  });

  it('leaves the backend unresolved outside production until boot resolves it', () => {
    const config = loadConfig(ServiceConfig, {});
    expect(config.COORDINATION_BACKEND).toBeUndefined();
    expect(() => config.coordinationBackend).toThrow(/not resolved/);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig(ServiceConfig, { DB_PORT: 'five', MIGRATIONS_RUN: 'maybe', NODE_ENV: 'staging' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('DB_PORT');
    expect(message).toContain('MIGRATIONS_RUN');
    expect(message).toContain('NODE_ENV');
  });
});
