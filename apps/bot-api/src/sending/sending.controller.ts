import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bot-auth';
import type { Bot } from '../bots/entities/bot.entity';
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
  @SendOperation()
  sendMessage(@CurrentBot() bot: Bot, @Body() dto: SendMessageDto) {
    return this.sending.sendMessage(bot, dto);
  }

  @Post('sendPhoto')
  @SendOperation()
  sendPhoto(@CurrentBot() bot: Bot, @Body() dto: SendPhotoDto) {
    return this.sending.sendFile(bot, 'photo', dto);
  }

  @Post('sendDocument')
  @SendOperation()
  sendDocument(@CurrentBot() bot: Bot, @Body() dto: SendDocumentDto) {
    return this.sending.sendFile(bot, 'document', dto);
  }

  @Post('sendVideo')
  @SendOperation()
  sendVideo(@CurrentBot() bot: Bot, @Body() dto: SendVideoDto) {
    return this.sending.sendFile(bot, 'video', dto);
  }

  @Post('sendAudio')
  @SendOperation()
  sendAudio(@CurrentBot() bot: Bot, @Body() dto: SendAudioDto) {
    return this.sending.sendFile(bot, 'audio', dto);
  }

  @Post('sendVoice')
  @SendOperation()
  sendVoice(@CurrentBot() bot: Bot, @Body() dto: SendVoiceDto) {
    return this.sending.sendFile(bot, 'voice', dto);
  }

  @Post('sendVideoNote')
  @SendOperation()
  sendVideoNote(@CurrentBot() bot: Bot, @Body() dto: SendVideoNoteDto) {
    return this.sending.sendFile(bot, 'video_note', dto);
  }

  @Post('sendAnimation')
  @SendOperation()
  sendAnimation(@CurrentBot() bot: Bot, @Body() dto: SendAnimationDto) {
    return this.sending.sendFile(bot, 'animation', dto);
  }

  @Post('sendSticker')
  @SendOperation()
  sendSticker(@CurrentBot() bot: Bot, @Body() dto: SendStickerDto) {
    return this.sending.sendFile(bot, 'sticker', dto);
  }

  @Post('sendLocation')
  @SendOperation()
  sendLocation(@CurrentBot() bot: Bot, @Body() dto: SendLocationDto) {
    return this.sending.sendLocation(bot, dto);
  }

  @Post('sendVenue')
  @SendOperation()
  sendVenue(@CurrentBot() bot: Bot, @Body() dto: SendVenueDto) {
    return this.sending.sendVenue(bot, dto);
  }

  @Post('sendDice')
  @SendOperation()
  sendDice(@CurrentBot() bot: Bot, @Body() dto: SendDiceDto) {
    return this.sending.sendDice(bot, dto);
  }

  @Post('sendPoll')
  @SendOperation()
  sendPoll(@CurrentBot() bot: Bot, @Body() dto: SendPollDto) {
    return this.sending.sendPoll(bot, dto);
  }

  @Post('sendContact')
  @SendOperation()
  sendContact(@CurrentBot() bot: Bot, @Body() dto: SendContactDto) {
    return this.sending.sendContact(bot, dto);
  }

  @Post('sendMediaGroup')
  @SendOperation()
  sendMediaGroup(@CurrentBot() bot: Bot, @Body() dto: SendMediaGroupDto) {
    return this.sending.sendMediaGroup(bot, dto);
  }

  @Post('forwardMessage')
  @SendOperation()
  forwardMessage(@CurrentBot() bot: Bot, @Body() dto: ForwardMessageDto) {
    return this.edits.forwardMessage(bot, dto);
  }

  @Post('copyMessage')
  @SendOperation()
  copyMessage(@CurrentBot() bot: Bot, @Body() dto: CopyMessageDto) {
    return this.edits.copyMessage(bot, dto);
  }

  @Post('sendChatAction')
  @HttpCode(200)
  @MessagingOperation()
  sendChatAction(@CurrentBot() bot: Bot, @Body() dto: SendChatActionDto) {
    return this.sending.sendChatAction(bot, dto);
  }

  @Post('editMessage')
  @HttpCode(200)
  @MessagingOperation()
  editMessage(@CurrentBot() bot: Bot, @Body() dto: EditMessageDto) {
    return this.edits.editMessage(bot, dto);
  }

  @Post('deleteMessage')
  @HttpCode(200)
  @MessagingOperation()
  deleteMessage(@CurrentBot() bot: Bot, @Body() dto: DeleteMessageDto) {
    return this.edits.deleteMessage(bot, dto);
  }

  @Post('editMessageReplyMarkup')
  @HttpCode(200)
  @MessagingOperation()
  editMessageReplyMarkup(@CurrentBot() bot: Bot, @Body() dto: EditMessageReplyMarkupDto) {
    return this.edits.editMessageReplyMarkup(bot, dto);
  }
}
