import { Global, Module } from '@nestjs/common';
import { AppTokenAuthenticator } from './app-token.authenticator';
import { AppTokenGuard } from './app-token.guard';
import { ApplicationAccessGuard } from './application-access.guard';
import { MeController } from './me.controller';
import { MeService } from './me.service';

/** Global because every runtime controller's AppTokenGuard resolves the authenticator from its own module. */
@Global()
@Module({
  controllers: [MeController],
  providers: [AppTokenAuthenticator, AppTokenGuard, ApplicationAccessGuard, MeService],
  exports: [AppTokenAuthenticator, AppTokenGuard, ApplicationAccessGuard],
})
export class AppAuthModule {}
