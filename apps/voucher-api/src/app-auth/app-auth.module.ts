import { Global, Module } from '@nestjs/common';
import { AppTokensModule } from '../app-tokens/app-tokens.module';
import { AppTokenAuthenticator } from './app-token.authenticator';
import { AppTokenCache } from '../applications/app-token-cache';
import { AppTokenGuard } from './app-token.guard';
import { ApplicationAccessGuard } from './application-access.guard';
import { MeController } from './me.controller';
import { MeService } from './me.service';

/** Global because every runtime controller's AppTokenGuard resolves the authenticator from its own module. */
@Global()
@Module({
  imports: [AppTokensModule],
  controllers: [MeController],
  providers: [AppTokenAuthenticator, AppTokenCache, AppTokenGuard, ApplicationAccessGuard, MeService],
  exports: [AppTokenAuthenticator, AppTokenCache, AppTokenGuard, ApplicationAccessGuard],
})
export class AppAuthModule {}
