import { Injectable } from '@nestjs/common';
import { NativeMessage, TelegramObject, toTelegramPoll } from '@app/telegram-shapes';
import {
  CopyMessageDto,
  DeleteMessageDto,
  DeleteMessagesDto,
  EditMessageCaptionDto,
  EditMessageDto,
  EditMessageReplyMarkupDto,
  ForwardMessageDto,
  StopPollDto,
} from '../../sending/dto/edit.dto';
import {
  SendChatActionDto,
  SendContactDto,
  SendDiceDto,
  SendLocationDto,
  SendMessageDto,
  SendPollDto,
  SendVenueDto,
} from '../../sending/dto/send.dto';
import { MessageEditsService } from '../../sending/message-edits.service';
import { SendingService } from '../../sending/sending.service';
import { nativeDto } from '../native-dto';
import type { TelegramArgs } from '../telegram-args';
import type { TelegramCall, TelegramMethod, TelegramMethodGroup } from '../telegram-call';
import { TelegramError, TELEGRAM_TEXTS } from '../telegram-errors';
import { TelegramIdsService } from '../telegram-ids.service';
import { editedReplyMarkupOf, formattingOf, TelegramSends } from '../telegram-sends';

/** Telegram's poll options: strings (older API) or InputPollOption objects `{ text }`. */
function pollOptions(args: TelegramArgs): string[] {
  const options = args.json('options', 'poll options JSON array');
  if (!Array.isArray(options)) throw TelegramError.badRequest('poll options must be an array');
  return options.map((option: unknown) =>
    typeof option === 'object' && option !== null ? String((option as { text?: unknown }).text ?? '') : String(option),
  );
}

function noInlineMessages(args: TelegramArgs): void {
  if (args.has('inline_message_id')) {
    throw new TelegramError(400, TELEGRAM_TEXTS.inlineMessageNotEditable);
  }
}

/** Text and non-file sends, edits, deletion, forward and copy: each one call of the native service. */
@Injectable()
export class MessagesMethods implements TelegramMethodGroup {
  constructor(
    private readonly sending: SendingService,
    private readonly edits: MessageEditsService,
    private readonly sends: TelegramSends,
    private readonly ids: TelegramIdsService,
  ) {}

  methods(): Record<string, TelegramMethod> {
    return {
      sendMessage: (call) => this.sendMessage(call),
      sendLocation: (call) => this.sendLocation(call),
      sendVenue: (call) => this.sendVenue(call),
      sendContact: (call) => this.sendContact(call),
      sendPoll: (call) => this.sendPoll(call),
      sendDice: (call) => this.sendDice(call),
      sendChatAction: (call) => this.sendChatAction(call),
      editMessageText: (call) => this.editMessageText(call),
      editMessageCaption: (call) => this.editMessageCaption(call),
      editMessageReplyMarkup: (call) => this.editMessageReplyMarkup(call),
      deleteMessage: (call) => this.deleteMessage(call),
      deleteMessages: (call) => this.deleteMessages(call),
      stopPoll: (call) => this.stopPoll(call),
      forwardMessage: (call) => this.forwardMessage(call),
      copyMessage: (call) => this.copyMessage(call),
    };
  }

  /** parse_mode markup is parsed (or entities checked) by the native send: the user reads plain text and entities. */
  private async sendMessage({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const text = args.string('text');
    if (text === undefined || text.trim() === '') throw new TelegramError(400, TELEGRAM_TEXTS.textEmpty);
    const dto = await nativeDto(SendMessageDto, {
      ...(await this.sends.target(args)),
      text,
      ...formattingOf(args, 'entities'),
    });
    return this.sends.message(await this.sending.sendMessage(bot, dto));
  }

  private async sendLocation({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(SendLocationDto, {
      ...(await this.sends.target(args)),
      latitude: args.requiredNumber('latitude'),
      longitude: args.requiredNumber('longitude'),
    });
    return this.sends.message(await this.sending.sendLocation(bot, dto));
  }

  private async sendVenue({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(SendVenueDto, {
      ...(await this.sends.target(args)),
      latitude: args.requiredNumber('latitude'),
      longitude: args.requiredNumber('longitude'),
      title: args.requiredString('title'),
      address: args.string('address') || undefined,
    });
    return this.sends.message(await this.sending.sendVenue(bot, dto));
  }

  private async sendContact({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(SendContactDto, {
      ...(await this.sends.target(args)),
      phone_number: args.requiredString('phone_number'),
      first_name: args.requiredString('first_name'),
      last_name: args.string('last_name') || undefined,
    });
    return this.sends.message(await this.sending.sendContact(bot, dto));
  }

  private async sendPoll({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(SendPollDto, {
      ...(await this.sends.target(args)),
      question: args.requiredString('question'),
      options: pollOptions(args),
      is_anonymous: args.bool('is_anonymous'),
      type: args.string('type'),
      correct_option_id: args.int('correct_option_id'),
    });
    return this.sends.message(await this.sending.sendPoll(bot, dto));
  }

  private async sendDice({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(SendDiceDto, { ...(await this.sends.target(args)), emoji: args.string('emoji') });
    return this.sends.message(await this.sending.sendDice(bot, dto));
  }

  private async sendChatAction({ bot, args }: TelegramCall): Promise<true> {
    this.sends.requireSendScope(bot);
    const dto = await nativeDto(SendChatActionDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      action: args.requiredString('action'),
    });
    return this.sending.sendChatAction(bot, dto);
  }

  /** Without reply_markup the buttons are removed, as in Telegram (and by every edit method below). */
  private async editMessageText({ bot, args }: TelegramCall): Promise<TelegramObject> {
    this.sends.requireSendScope(bot);
    noInlineMessages(args);
    const text = args.string('text');
    if (text === undefined || text.trim() === '') throw new TelegramError(400, TELEGRAM_TEXTS.textEmpty);
    const dto = await nativeDto(EditMessageDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
      text,
      ...formattingOf(args, 'entities'),
      reply_markup: editedReplyMarkupOf(args),
    });
    return this.sends.message(await this.edits.editMessage(bot, dto));
  }

  /** A caption edit is an edit of the bot's own media message; no caption removes it, no reply_markup the buttons. */
  private async editMessageCaption({ bot, args }: TelegramCall): Promise<TelegramObject> {
    this.sends.requireSendScope(bot);
    noInlineMessages(args);
    const dto = await nativeDto(EditMessageCaptionDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
      caption: args.string('caption'),
      ...formattingOf(args, 'caption_entities'),
      reply_markup: editedReplyMarkupOf(args),
    });
    return this.sends.message(await this.edits.editMessageCaption(bot, dto));
  }

  private async editMessageReplyMarkup({ bot, args }: TelegramCall): Promise<TelegramObject> {
    this.sends.requireSendScope(bot);
    noInlineMessages(args);
    const dto = await nativeDto(EditMessageReplyMarkupDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
      reply_markup: editedReplyMarkupOf(args),
    });
    return this.sends.message(await this.edits.editMessageReplyMarkup(bot, dto));
  }

  private async deleteMessage({ bot, args }: TelegramCall): Promise<true> {
    this.sends.requireSendScope(bot);
    const dto = await nativeDto(DeleteMessageDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
    });
    return this.edits.deleteMessage(bot, dto);
  }

  private async deleteMessages({ bot, args }: TelegramCall): Promise<true> {
    this.sends.requireSendScope(bot);
    const dto = await nativeDto(DeleteMessagesDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_ids: args.json('message_ids', 'message identifiers JSON array'),
    });
    return this.edits.deleteMessages(bot, dto);
  }

  /** Telegram answers stopPoll with the Poll, closed; like an edit, it removes the buttons unless reply_markup is given. */
  private async stopPoll({ bot, args }: TelegramCall): Promise<TelegramObject> {
    this.sends.requireSendScope(bot);
    noInlineMessages(args);
    const dto = await nativeDto(StopPollDto, {
      chat_id: await this.ids.chatOf(args.chat()),
      message_id: args.requiredInt('message_id'),
      reply_markup: editedReplyMarkupOf(args),
    });
    const view = await this.edits.stopPoll(bot, dto);
    return toTelegramPoll({ ...(view as NativeMessage), poll: view.poll! });
  }

  private async forwardMessage({ bot, args }: TelegramCall): Promise<TelegramObject> {
    await this.sends.admit(bot);
    const dto = await nativeDto(ForwardMessageDto, await this.forwardRefs(args));
    return this.sends.message(await this.edits.forwardMessage(bot, dto));
  }

  /** Telegram answers copyMessage with the new MessageId only. */
  private async copyMessage({ bot, args }: TelegramCall): Promise<{ message_id: number }> {
    await this.sends.admit(bot);
    const dto = await nativeDto(CopyMessageDto, await this.forwardRefs(args));
    const copy = await this.edits.copyMessage(bot, dto);
    return { message_id: copy.message_id };
  }

  private async forwardRefs(args: TelegramArgs): Promise<Record<string, unknown>> {
    return {
      chat_id: await this.ids.chatOf(args.chat()),
      from_chat_id: await this.ids.chatOf(args.chat('from_chat_id')),
      message_id: args.requiredInt('message_id'),
    };
  }
}
