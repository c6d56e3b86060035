import { DynamicModule, Global, Module, ModuleMetadata, Type } from '@nestjs/common';
import { AccountJwtVerifier } from './account-jwt';
import type { AccountAuthConfig } from './auth.config';
import { ACCOUNT_DIRECTORY, AccountDirectory, AccountGuard, PermissionsGuard, PlatformAdminGuard } from './guards';
import { INTERNAL_API_TOKEN, InternalServiceGuard } from './internal-service-token';

export interface AuthModuleOptions {
  config: AccountAuthConfig;
  /** The service's user directory, upserted on every authenticated call. */
  directory?: Type<AccountDirectory>;
  imports?: ModuleMetadata['imports'];
  /** The shared secret other platform services present on internal routes (InternalServiceGuard). */
  internalApiToken?: string;
}

@Global()
@Module({})
export class AuthModule {
  static forRoot({ config, directory, imports = [], internalApiToken }: AuthModuleOptions): DynamicModule {
    const verifier = new AccountJwtVerifier({
      secret: config.ACCOUNT_JWKS_URL ? undefined : config.ACCOUNT_JWT_SECRET,
      jwksUrl: config.ACCOUNT_JWKS_URL,
      issuer: config.ACCOUNT_JWT_ISSUER,
      audience: config.ACCOUNT_JWT_AUDIENCE,
      maxAgeSeconds: config.ACCOUNT_JWT_MAX_AGE,
    });
    const directoryProviders = directory ? [{ provide: ACCOUNT_DIRECTORY, useExisting: directory }] : [];
    const internalProviders =
      internalApiToken === undefined
        ? []
        : [{ provide: INTERNAL_API_TOKEN, useValue: internalApiToken }, InternalServiceGuard];
    return {
      module: AuthModule,
      imports,
      providers: [
        { provide: AccountJwtVerifier, useValue: verifier },
        ...directoryProviders,
        AccountGuard,
        PlatformAdminGuard,
        PermissionsGuard,
        ...internalProviders,
      ],
      exports: [
        AccountJwtVerifier,
        AccountGuard,
        PlatformAdminGuard,
        PermissionsGuard,
        ...(directory ? [ACCOUNT_DIRECTORY] : []),
        ...(internalApiToken === undefined ? [] : [INTERNAL_API_TOKEN, InternalServiceGuard]),
      ],
    };
  }
}
