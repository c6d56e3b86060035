import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { BotAuth, CurrentBot } from '../bots/auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { BOT_NOT_AVAILABLE, MethodDocs, NOT_VISIBLE } from '../method-docs';
import { MessagingOperation } from '../quotas/send-quota.guard';
import {
  CopyMessageDto,
  DeleteMessageDto,
  DeleteMessagesDto,
  EditMessageCaptionDto,
  EditMessageDto,
  EditMessageMediaDto,
  EditMessageReplyMarkupDto,
  ForwardMessageDto,
  StopPollDto,
} from './dto/edit.dto';
import {
  SendAnimationDto,
  SendAudioDto,
  SendChatActionDto,
  SendContactDto,
  SendDiceDto,
  SendDocumentDto,
  SendLocationDto,
  SendMediaGroupDto,
  SendMessageDto,
  SendPhotoDto,
  SendPollDto,
  SendStickerDto,
  SendVenueDto,
  SendVideoDto,
  SendVideoNoteDto,
  SendVoiceDto,
} from './dto/send.dto';
import {
  answered,
  IDEMPOTENT_SEND_ERRORS,
  IdempotentMessagingOperation,
  IdempotentSend,
  IdempotentSendOperation,
  SendKey,
} from './idempotent-send';
import { MessageEditsService } from './message-edits.service';
import { SendingService } from './sending.service';
import { MessageView } from '../messages/dto/message.view';
import { SuccessDoc, TRUE_SCHEMA } from '../method-docs';

const REPLAY_NOTE = '; a replay under the same Idempotency-Key carries `Idempotent-Replayed: true`';
const SENT: SuccessDoc = {
  status: 201,
  description: `The new message: message_id, chat, from, text, date and its kind blocks${REPLAY_NOTE}`,
  type: MessageView,
};
const FORBIDDEN_SCOPE: BotErrorDoc = { code: 'FORBIDDEN', when: 'the bot lacks the scope messages:send' };
const ACTION_ERRORS: BotErrorDoc[] = ['VALIDATION', BOT_NOT_AVAILABLE, FORBIDDEN_SCOPE, NOT_VISIBLE];
const SEND_ERRORS: BotErrorDoc[] = [
  ...ACTION_ERRORS,
  { code: 'BOT_RATE_LIMIT', when: 'a send quota of the bot is used up; see Retry-After' },
  ...IDEMPOTENT_SEND_ERRORS,
];
const CHANGE_ERRORS: BotErrorDoc[] = [
  'VALIDATION',
  BOT_NOT_AVAILABLE,
  { code: 'FORBIDDEN', when: 'the message was not sent by this bot, or the bot lacks messages:send' },
  NOT_VISIBLE,
];
const EDIT_ERRORS: BotErrorDoc[] = [...CHANGE_ERRORS, ...IDEMPOTENT_SEND_ERRORS];

/**
 * Bot send operations (spec 4.2 "Sending"). New messages answer 201; changes to existing ones 200.
 * Sends, edits, forwards and copies take an optional Idempotency-Key (see `IdempotentSend`).
 */
@ApiTags('bot sending')
@BotAuth()
@Controller('api/v1/bots')
export class SendingController {
  constructor(
    private readonly sending: SendingService,
    private readonly edits: MessageEditsService,
  ) {}

  @Post('sendMessage')
  @MethodDocs('sendMessage: text up to 4096 characters', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendMessage(
    @CurrentBot() bot: Bot,
    @Body() dto: SendMessageDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendMessage(bot, dto, key));
  }

  @Post('sendPhoto')
  @MethodDocs('sendPhoto by file_id; width and height default to the stored file', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendPhoto(
    @CurrentBot() bot: Bot,
    @Body() dto: SendPhotoDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'photo', dto, key));
  }

  @Post('sendDocument')
  @MethodDocs('sendDocument by file_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendDocument(
    @CurrentBot() bot: Bot,
    @Body() dto: SendDocumentDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'document', dto, key));
  }

  @Post('sendVideo')
  @MethodDocs('sendVideo by file_id; width, height, duration default to the stored file', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendVideo(
    @CurrentBot() bot: Bot,
    @Body() dto: SendVideoDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'video', dto, key));
  }

  @Post('sendAudio')
  @MethodDocs('sendAudio by file_id with optional performer and title', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendAudio(
    @CurrentBot() bot: Bot,
    @Body() dto: SendAudioDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'audio', dto, key));
  }

  @Post('sendVoice')
  @MethodDocs('sendVoice by file_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendVoice(
    @CurrentBot() bot: Bot,
    @Body() dto: SendVoiceDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'voice', dto, key));
  }

  @Post('sendVideoNote')
  @MethodDocs('sendVideoNote by file_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendVideoNote(
    @CurrentBot() bot: Bot,
    @Body() dto: SendVideoNoteDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'video_note', dto, key));
  }

  @Post('sendAnimation')
  @MethodDocs('sendAnimation by file_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendAnimation(
    @CurrentBot() bot: Bot,
    @Body() dto: SendAnimationDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'animation', dto, key));
  }

  @Post('sendSticker')
  @MethodDocs('sendSticker by file_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendSticker(
    @CurrentBot() bot: Bot,
    @Body() dto: SendStickerDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendFile(bot, 'sticker', dto, key));
  }

  @Post('sendLocation')
  @MethodDocs('sendLocation: latitude, longitude and an optional name', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendLocation(
    @CurrentBot() bot: Bot,
    @Body() dto: SendLocationDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendLocation(bot, dto, key));
  }

  @Post('sendVenue')
  @MethodDocs('sendVenue: a location with a required title', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendVenue(
    @CurrentBot() bot: Bot,
    @Body() dto: SendVenueDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendVenue(bot, dto, key));
  }

  @Post('sendDice')
  @MethodDocs('sendDice: the value is rolled by the server', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendDice(
    @CurrentBot() bot: Bot,
    @Body() dto: SendDiceDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendDice(bot, dto, key));
  }

  @Post('sendPoll')
  @MethodDocs('sendPoll: 2 to 12 options; a quiz names its correct_option_id', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendPoll(
    @CurrentBot() bot: Bot,
    @Body() dto: SendPollDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendPoll(bot, dto, key));
  }

  @Post('sendContact')
  @MethodDocs('sendContact', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  sendContact(
    @CurrentBot() bot: Bot,
    @Body() dto: SendContactDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.sending.sendContact(bot, dto, key));
  }

  @Post('sendMediaGroup')
  @MethodDocs(
    'sendMediaGroup: 2 to 10 items stored as separate messages',
    {
      status: 201,
      description: `The new messages in order; only the last carries reply_markup${REPLAY_NOTE}`,
      type: [MessageView],
    },
    ...SEND_ERRORS,
  )
  @IdempotentSendOperation()
  sendMediaGroup(
    @CurrentBot() bot: Bot,
    @Body() dto: SendMediaGroupDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView[] | RenderedBody> {
    return answered(key, this.sending.sendMediaGroup(bot, dto, key));
  }

  @Post('forwardMessage')
  @MethodDocs('forwardMessage with a forwarded-from mark; the bot must be in both chats', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  forwardMessage(
    @CurrentBot() bot: Bot,
    @Body() dto: ForwardMessageDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.forwardMessage(bot, dto, key));
  }

  @Post('copyMessage')
  @MethodDocs('copyMessage: like forwardMessage without the mark', SENT, ...SEND_ERRORS)
  @IdempotentSendOperation()
  copyMessage(
    @CurrentBot() bot: Bot,
    @Body() dto: CopyMessageDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.copyMessage(bot, dto, key));
  }

  @Post('sendChatAction')
  @MethodDocs(
    'sendChatAction: shown to the chat for 5 seconds',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    ...ACTION_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  sendChatAction(@CurrentBot() bot: Bot, @Body() dto: SendChatActionDto): Promise<true> {
    return this.sending.sendChatAction(bot, dto);
  }

  @Post('editMessage')
  @MethodDocs(
    'editMessage: new text for a text message of this bot; emits edited_message',
    { status: 200, description: `The edited message with metadata.isEdited${REPLAY_NOTE}`, type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @IdempotentMessagingOperation()
  editMessage(
    @CurrentBot() bot: Bot,
    @Body() dto: EditMessageDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.editMessage(bot, dto, key));
  }

  @Post('editMessageCaption')
  @MethodDocs(
    'editMessageCaption: new caption (and its formatting) for a media message of this bot; emits edited_message',
    { status: 200, description: `The edited message with metadata.isEdited${REPLAY_NOTE}`, type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @IdempotentMessagingOperation()
  editMessageCaption(
    @CurrentBot() bot: Bot,
    @Body() dto: EditMessageCaptionDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.editMessageCaption(bot, dto, key));
  }

  @Post('editMessageMedia')
  @MethodDocs(
    'editMessageMedia: another file (and caption) for a media message of this bot; emits edited_message',
    { status: 200, description: `The edited message with metadata.isEdited${REPLAY_NOTE}`, type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @IdempotentMessagingOperation()
  editMessageMedia(
    @CurrentBot() bot: Bot,
    @Body() dto: EditMessageMediaDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.editMessageMedia(bot, dto, key));
  }

  @Post('stopPoll')
  @MethodDocs(
    'stopPoll: close a poll of this bot; the message shows poll.is_closed',
    { status: 200, description: 'The poll message', type: MessageView },
    ...CHANGE_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  stopPoll(@CurrentBot() bot: Bot, @Body() dto: StopPollDto): Promise<MessageView> {
    return this.edits.stopPoll(bot, dto);
  }

  @Post('deleteMessages')
  @MethodDocs(
    'deleteMessages: up to 100 messages of this bot in one chat, all or none; unknown ones are skipped; emits message_deleted',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    ...CHANGE_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  deleteMessages(@CurrentBot() bot: Bot, @Body() dto: DeleteMessagesDto): Promise<true> {
    return this.edits.deleteMessages(bot, dto);
  }

  @Post('deleteMessage')
  @MethodDocs(
    'deleteMessage: a message of this bot; emits message_deleted',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    ...CHANGE_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  deleteMessage(@CurrentBot() bot: Bot, @Body() dto: DeleteMessageDto): Promise<true> {
    return this.edits.deleteMessage(bot, dto);
  }

  @Post('editMessageReplyMarkup')
  @MethodDocs(
    'editMessageReplyMarkup: replace or (null) clear the buttons',
    { status: 200, description: `The message with its new reply_markup${REPLAY_NOTE}`, type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @IdempotentMessagingOperation()
  editMessageReplyMarkup(
    @CurrentBot() bot: Bot,
    @Body() dto: EditMessageReplyMarkupDto,
    @SendKey() key: IdempotentSend | undefined,
  ): Promise<MessageView | RenderedBody> {
    return answered(key, this.edits.editMessageReplyMarkup(bot, dto, key));
  }
}
