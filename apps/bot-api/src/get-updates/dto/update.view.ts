import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { FriendRequestUpdateView } from '../../friends/friend-request.view';
import { CallbackQueryUpdateView, InlineQueryUpdateView } from '../../interaction/interaction.view';
import { ChatIdentityView, ChatRefView, MEMBER_STATUSES, MemberStatus } from '../../chats/dto/chat.view';
import { MessageEntityView, MessageView } from '../../messages/dto/message.view';
import { UserView } from '../../users/user.view';
import { MESSAGE_KINDS, MessageKind } from '../../messages/entities/message.entity';
import { UPDATE_TYPES, UpdateType } from '../../update-types';

/** `message` of message_deleted, message_read and message_delivered. */
export class MessageEventView {
  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty({ type: ChatIdentityView })
  chat: ChatIdentityView;

  @ApiProperty({ type: 'integer', description: 'Unix seconds of the event' })
  date: number;
}

/** `message` of edited_message. */
export class EditedMessageEventView extends MessageEventView {
  @ApiProperty({ type: UserView })
  from: UserView;

  @ApiPropertyOptional({ enum: MESSAGE_KINDS, description: 'The kind of the edited message' })
  kind?: MessageKind;

  @ApiProperty({ type: String, nullable: true, description: 'The new text, or the caption of a media message' })
  text: string | null;

  @ApiPropertyOptional({ type: [MessageEntityView], description: 'Formatting of text; absent when there is none' })
  entities?: MessageEntityView[];

  @ApiProperty({ type: 'integer', description: 'Unix seconds of the edit' })
  edit_date: number;
}

export class ChatMemberStateView {
  @ApiProperty({ type: UserView })
  user: UserView;

  @ApiProperty({ enum: MEMBER_STATUSES })
  status: MemberStatus;
}

/** `my_chat_member` and `chat_member`: who changed whose membership, from what to what. */
export class ChatMemberUpdatedView {
  @ApiProperty({ type: ChatRefView })
  chat: ChatRefView;

  @ApiProperty({ type: UserView, description: 'Who made the change' })
  from: UserView;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  date: number;

  @ApiProperty({ type: ChatMemberStateView })
  old_chat_member: ChatMemberStateView;

  @ApiProperty({ type: ChatMemberStateView })
  new_chat_member: ChatMemberStateView;
}

export class ChatJoinRequestEventView {
  @ApiProperty({ format: 'uuid', description: 'The join request' })
  id: string;

  @ApiProperty({ type: ChatRefView })
  chat: ChatRefView;

  @ApiProperty({ type: UserView })
  from: UserView;

  @ApiProperty({ description: 'The user who asked, to approve or decline with' })
  user_chat_id: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  date: number;
}

/**
 * An Update as getUpdates returns it (spec 6.2): update_id, type, bot_id, update_seq and one member
 * named for the type — `message` for every message type, also edited, deleted and receipts.
 */
@ApiExtraModels(MessageView, EditedMessageEventView, MessageEventView)
export class UpdateView {
  @ApiProperty({ format: 'uuid', description: 'Constant across retries; the idempotency key' })
  update_id: string;

  @ApiProperty({ enum: UPDATE_TYPES })
  type: UpdateType;

  @ApiProperty()
  bot_id: string;

  @ApiProperty({ type: 'integer', description: 'Send the last one received plus 1 as the next offset' })
  update_seq: number;

  @ApiPropertyOptional({
    description:
      'message, photo, document, video, audio, location: the new message; edited_message: the edit; ' +
      'message_deleted, message_read, message_delivered: which message, when',
    anyOf: [
      { $ref: getSchemaPath(MessageView) },
      { $ref: getSchemaPath(EditedMessageEventView) },
      { $ref: getSchemaPath(MessageEventView) },
    ],
  })
  message?: MessageView | EditedMessageEventView | MessageEventView;

  @ApiPropertyOptional({ type: CallbackQueryUpdateView })
  callback_query?: CallbackQueryUpdateView;

  @ApiPropertyOptional({ type: InlineQueryUpdateView })
  inline_query?: InlineQueryUpdateView;

  @ApiPropertyOptional({ type: FriendRequestUpdateView })
  friend_request?: FriendRequestUpdateView;

  @ApiPropertyOptional({ type: ChatMemberUpdatedView })
  my_chat_member?: ChatMemberUpdatedView;

  @ApiPropertyOptional({ type: ChatMemberUpdatedView })
  chat_member?: ChatMemberUpdatedView;

  @ApiPropertyOptional({ type: ChatJoinRequestEventView })
  chat_join_request?: ChatJoinRequestEventView;
}
