export * from './bot-auth.decorators';
export * from './bot-request';
export * from './bot-token.guard';
export * from './bot-token.service';
export * from './current-bot.decorator';
export * from './checked-token.guard';
