// Who a write came from, as the write log reports it: the request's user, agent, field manager and verb.

import { fieldManagerName } from '../patch/index.ts';
import type { WriteOrigin } from '../storage/store.ts';
import type { ApiRequest } from './request.ts';

export function writeOrigin(req: ApiRequest): WriteOrigin {
  return {
    user: req.user.username,
    groups: req.user.groups,
    userAgent: req.userAgent,
    manager: fieldManagerName(req.query.get('fieldManager') ?? undefined, req.userAgent),
    verb: req.verb,
    subresource: req.subresource,
  };
}
