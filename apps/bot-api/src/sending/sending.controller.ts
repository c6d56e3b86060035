import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bot-auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { BOT_NOT_AVAILABLE, MethodDocs, NOT_VISIBLE } from '../method-docs';
import { MessagingOperation, SendOperation } from '../quotas/send-quota.guard';
import {
  CopyMessageDto,
  DeleteMessageDto,
  EditMessageDto,
  EditMessageReplyMarkupDto,
  ForwardMessageDto,
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
import { MessageEditsService } from './message-edits.service';
import { SendingService } from './sending.service';
import { MessageView } from '../messages/dto/message.view';
import { SuccessDoc, TRUE_SCHEMA } from '../method-docs';

const SENT: SuccessDoc = {
  status: 201,
  description: 'The new message: message_id, chat, from, text, date and its kind blocks',
  type: MessageView,
};
const FORBIDDEN_SCOPE: BotErrorDoc = { code: 'FORBIDDEN', when: 'the bot lacks the scope messages:send' };
const ACTION_ERRORS: BotErrorDoc[] = ['VALIDATION', BOT_NOT_AVAILABLE, FORBIDDEN_SCOPE, NOT_VISIBLE];
const SEND_ERRORS: BotErrorDoc[] = [
  ...ACTION_ERRORS,
  { code: 'BOT_RATE_LIMIT', when: 'a send quota of the bot is used up; see Retry-After' },
];
const EDIT_ERRORS: BotErrorDoc[] = [
  'VALIDATION',
  BOT_NOT_AVAILABLE,
  { code: 'FORBIDDEN', when: 'the message was not sent by this bot, or the bot lacks messages:send' },
  NOT_VISIBLE,
];

/** Bot send operations (spec 4.2 "Sending"). New messages answer 201; changes to existing ones 200. */
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
  @SendOperation()
  sendMessage(@CurrentBot() bot: Bot, @Body() dto: SendMessageDto): Promise<MessageView> {
    return this.sending.sendMessage(bot, dto);
  }

  @Post('sendPhoto')
  @MethodDocs('sendPhoto by file_id; width and height default to the stored file', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendPhoto(@CurrentBot() bot: Bot, @Body() dto: SendPhotoDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'photo', dto);
  }

  @Post('sendDocument')
  @MethodDocs('sendDocument by file_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendDocument(@CurrentBot() bot: Bot, @Body() dto: SendDocumentDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'document', dto);
  }

  @Post('sendVideo')
  @MethodDocs('sendVideo by file_id; width, height, duration default to the stored file', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendVideo(@CurrentBot() bot: Bot, @Body() dto: SendVideoDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'video', dto);
  }

  @Post('sendAudio')
  @MethodDocs('sendAudio by file_id with optional performer and title', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendAudio(@CurrentBot() bot: Bot, @Body() dto: SendAudioDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'audio', dto);
  }

  @Post('sendVoice')
  @MethodDocs('sendVoice by file_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendVoice(@CurrentBot() bot: Bot, @Body() dto: SendVoiceDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'voice', dto);
  }

  @Post('sendVideoNote')
  @MethodDocs('sendVideoNote by file_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendVideoNote(@CurrentBot() bot: Bot, @Body() dto: SendVideoNoteDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'video_note', dto);
  }

  @Post('sendAnimation')
  @MethodDocs('sendAnimation by file_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendAnimation(@CurrentBot() bot: Bot, @Body() dto: SendAnimationDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'animation', dto);
  }

  @Post('sendSticker')
  @MethodDocs('sendSticker by file_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendSticker(@CurrentBot() bot: Bot, @Body() dto: SendStickerDto): Promise<MessageView> {
    return this.sending.sendFile(bot, 'sticker', dto);
  }

  @Post('sendLocation')
  @MethodDocs('sendLocation: latitude, longitude and an optional name', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendLocation(@CurrentBot() bot: Bot, @Body() dto: SendLocationDto): Promise<MessageView> {
    return this.sending.sendLocation(bot, dto);
  }

  @Post('sendVenue')
  @MethodDocs('sendVenue: a location with a required title', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendVenue(@CurrentBot() bot: Bot, @Body() dto: SendVenueDto): Promise<MessageView> {
    return this.sending.sendVenue(bot, dto);
  }

  @Post('sendDice')
  @MethodDocs('sendDice: the value is rolled by the server', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendDice(@CurrentBot() bot: Bot, @Body() dto: SendDiceDto): Promise<MessageView> {
    return this.sending.sendDice(bot, dto);
  }

  @Post('sendPoll')
  @MethodDocs('sendPoll: 2 to 12 options; a quiz names its correct_option_id', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendPoll(@CurrentBot() bot: Bot, @Body() dto: SendPollDto): Promise<MessageView> {
    return this.sending.sendPoll(bot, dto);
  }

  @Post('sendContact')
  @MethodDocs('sendContact', SENT, ...SEND_ERRORS)
  @SendOperation()
  sendContact(@CurrentBot() bot: Bot, @Body() dto: SendContactDto): Promise<MessageView> {
    return this.sending.sendContact(bot, dto);
  }

  @Post('sendMediaGroup')
  @MethodDocs(
    'sendMediaGroup: 2 to 10 items stored as separate messages',
    { status: 201, description: 'The new messages in order; only the last carries reply_markup', type: [MessageView] },
    ...SEND_ERRORS,
  )
  @SendOperation()
  sendMediaGroup(@CurrentBot() bot: Bot, @Body() dto: SendMediaGroupDto): Promise<MessageView[]> {
    return this.sending.sendMediaGroup(bot, dto);
  }

  @Post('forwardMessage')
  @MethodDocs('forwardMessage with a forwarded-from mark; the bot must be in both chats', SENT, ...SEND_ERRORS)
  @SendOperation()
  forwardMessage(@CurrentBot() bot: Bot, @Body() dto: ForwardMessageDto): Promise<MessageView> {
    return this.edits.forwardMessage(bot, dto);
  }

  @Post('copyMessage')
  @MethodDocs('copyMessage: like forwardMessage without the mark', SENT, ...SEND_ERRORS)
  @SendOperation()
  copyMessage(@CurrentBot() bot: Bot, @Body() dto: CopyMessageDto): Promise<MessageView> {
    return this.edits.copyMessage(bot, dto);
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
    { status: 200, description: 'The edited message with metadata.isEdited', type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  editMessage(@CurrentBot() bot: Bot, @Body() dto: EditMessageDto): Promise<MessageView> {
    return this.edits.editMessage(bot, dto);
  }

  @Post('deleteMessage')
  @MethodDocs(
    'deleteMessage: a message of this bot; emits message_deleted',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  deleteMessage(@CurrentBot() bot: Bot, @Body() dto: DeleteMessageDto): Promise<true> {
    return this.edits.deleteMessage(bot, dto);
  }

  @Post('editMessageReplyMarkup')
  @MethodDocs(
    'editMessageReplyMarkup: replace or (null) clear the buttons',
    { status: 200, description: 'The message with its new reply_markup', type: MessageView },
    ...EDIT_ERRORS,
  )
  @HttpCode(200)
  @MessagingOperation()
  editMessageReplyMarkup(@CurrentBot() bot: Bot, @Body() dto: EditMessageReplyMarkupDto): Promise<MessageView> {
    return this.edits.editMessageReplyMarkup(bot, dto);
  }
}
