import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdatesModule } from '../updates/updates.module';
import { MyWebhookController } from './my-webhook.controller';
import { WebhookUrlPolicy } from './webhook-url';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [BotsModule, DeliveriesModule, UpdatesModule],
  controllers: [WebhooksController, MyWebhookController],
  providers: [WebhooksService, WebhookUrlPolicy],
  exports: [WebhooksService],
})
export class WebhooksModule {}
