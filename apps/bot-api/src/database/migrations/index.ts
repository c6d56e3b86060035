import { CreateIdempotencyKeys1763683200000 } from '@app/idempotency';
import { CreateUsers1763683300000 } from './1763683300000-CreateUsers';
import { CreateBots1763683400000 } from './1763683400000-CreateBots';
import { CreateConversations1763720000000 } from './1763720000000-CreateConversations';
import { CreateWebhookDeliveries1795306900000 } from './1795306900000-CreateWebhookDeliveries';
import { WebhookDeliveryControls1795400000000 } from './1795400000000-WebhookDeliveryControls';
import { CreateDeliveryRedrives1795500000000 } from './1795500000000-CreateDeliveryRedrives';
import { CreateFileUploads1795600000000 } from './1795600000000-CreateFileUploads';
import { CreateInteraction1795610000000 } from './1795610000000-CreateInteraction';
import { SelfHealingDeadLetters1795620000000 } from './1795620000000-SelfHealingDeadLetters';
import { CreateTelegramAliases1795700000000 } from './1795700000000-CreateTelegramAliases';
import { TelegramWebhookFormat1795700000001 } from './1795700000001-TelegramWebhookFormat';
import { MessageEntities1795826000000 } from './1795826000000-MessageEntities';
import { CreateQueueSchema1795800000000 } from './1795800000000-CreateQueueSchema';
import { CreateRateLimits1796000000001 } from './1796000000001-CreateRateLimits';
import { CreateChatActions1796000000002 } from './1796000000002-CreateChatActions';
import { VirtualMemberAuditRetention1795900000000 } from './1795900000000-VirtualMemberAuditRetention';
import { FileStorageBounds1795900000001 } from './1795900000001-FileStorageBounds';
import { CreateBotDeliverySettings1796100000000 } from './1796100000000-CreateBotDeliverySettings';
import { MessageDetectedEntities1796200000000 } from './1796200000000-MessageDetectedEntities';
import { MessageDetectionPendingIndex1796200000001 } from './1796200000001-MessageDetectionPendingIndex';
import { GeneratedBotUsernames1796300000000 } from './1796300000000-GeneratedBotUsernames';
import { AttemptDeliveryCreatedAt1796400000000 } from './1796400000000-AttemptDeliveryCreatedAt';
import { AttemptDeliveryDayPendingIndex1796400000001 } from './1796400000001-AttemptDeliveryDayPendingIndex';
import { PartitionDeliveryTables1796500000000 } from './1796500000000-PartitionDeliveryTables';
import { DeliveriesByBotAndDay1796500000001 } from './1796500000001-DeliveriesByBotAndDay';

/** Every migration of the bot database, in order. New migrations are appended here. */
export const botMigrations = [
  CreateIdempotencyKeys1763683200000,
  CreateUsers1763683300000,
  CreateBots1763683400000,
  CreateConversations1763720000000,
  CreateWebhookDeliveries1795306900000,
  WebhookDeliveryControls1795400000000,
  CreateDeliveryRedrives1795500000000,
  CreateFileUploads1795600000000,
  CreateInteraction1795610000000,
  SelfHealingDeadLetters1795620000000,
  CreateTelegramAliases1795700000000,
  TelegramWebhookFormat1795700000001,
  CreateQueueSchema1795800000000,
  MessageEntities1795826000000,
  VirtualMemberAuditRetention1795900000000,
  FileStorageBounds1795900000001,
  CreateRateLimits1796000000001,
  CreateChatActions1796000000002,
  CreateBotDeliverySettings1796100000000,
  MessageDetectedEntities1796200000000,
  MessageDetectionPendingIndex1796200000001,
  GeneratedBotUsernames1796300000000,
  AttemptDeliveryCreatedAt1796400000000,
  AttemptDeliveryDayPendingIndex1796400000001,
  PartitionDeliveryTables1796500000000,
  DeliveriesByBotAndDay1796500000001,
];
