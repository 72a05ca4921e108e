/** The Lua scripts of the Redis storage: each runs atomically in one round trip (single node or Sentinel). */

/**
 * Whether a decoded payload member is an indexed value: a non-empty string, as `indexValue` (lib/core/storage.ts)
 * decides in JavaScript. A JSON null decodes to a userdata, which `..` cannot concatenate.
 */
const INDEXED = `
local function indexed(v) return type(v) == 'string' and v ~= '' end`;

/** Single-node upsert: replaces the entry and its indexes atomically, dropping indexes the old payload had. */
export const UPSERT = `${INDEXED}
local old = redis.call('HGET', KEYS[1], 'payload')
if old then
  local o = cjson.decode(old)
  if indexed(o.uid) and o.uid ~= ARGV[4] then redis.call('DEL', ARGV[7] .. 'uid:{' .. o.uid .. '}') end
  if indexed(o.userCode) and o.userCode ~= ARGV[5] then
    redis.call('DEL', ARGV[7] .. 'userCode:{' .. o.userCode .. '}')
  end
  if indexed(o.grantId) and o.grantId ~= ARGV[6] then redis.call('SREM', ARGV[8] .. o.grantId .. '}', KEYS[1]) end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'consumed', ARGV[3]) end
local ttl = tonumber(ARGV[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
local function index(k)
  if ttl > 0 then redis.call('SET', k, ARGV[9], 'EX', ttl) else redis.call('SET', k, ARGV[9]) end
end
if ARGV[4] ~= '' then index(ARGV[7] .. 'uid:{' .. ARGV[4] .. '}') end
if ARGV[5] ~= '' then index(ARGV[7] .. 'userCode:{' .. ARGV[5] .. '}') end
if ARGV[6] ~= '' then
  local g = ARGV[8] .. ARGV[6] .. '}'
  redis.call('SADD', g, KEYS[1])
  if ttl > 0 then
    -- a new set gets this expiry; an expiring one is only ever extended; a persisted one stays persisted
    local current = redis.call('TTL', g)
    if (current == -1 and redis.call('SCARD', g) == 1) or (current >= 0 and current < ttl) then
      redis.call('EXPIRE', g, ttl)
    end
  else
    redis.call('PERSIST', g)
  end
end
return 1`;

/** Single-node destroy: the entry, its indexes and its grant-set membership at once. */
export const DESTROY = `${INDEXED}
local p = redis.call('HGET', KEYS[1], 'payload')
redis.call('DEL', KEYS[1])
if p then
  local o = cjson.decode(p)
  if indexed(o.uid) then redis.call('DEL', ARGV[1] .. 'uid:{' .. o.uid .. '}') end
  if indexed(o.userCode) then redis.call('DEL', ARGV[1] .. 'userCode:{' .. o.userCode .. '}') end
  if indexed(o.grantId) then redis.call('SREM', ARGV[2] .. o.grantId .. '}', KEYS[1]) end
end
return 1`;

export const CONSUME = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'consumed', ARGV[1])`;

export const FIND_BY_INDEX = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('HMGET', ARGV[1] .. id .. '}', 'payload', 'consumed')`;

/**
 * Adds `{id, exp}` to the `sessions` or `grants` list of an `AccountIndex` entry in one atomic step (see
 * {@link RedisStorage.addToAccountIndex}); the same read-modify-write as `AccountSessions` does through the
 * adapter: expired entries and an older entry of the same id leave that list, the entry lives as long as its
 * longest-lived member. ARGV: now (epoch s), kind, id, exp. Lists are written as JSON arrays even when empty.
 */
export const ACCOUNT_INDEX_ADD = `
local now = tonumber(ARGV[1])
local kind = ARGV[2]
local raw = redis.call('HGET', KEYS[1], 'payload')
local p = raw and cjson.decode(raw) or {}
local lists = {}
local maxExp = nil
for _, k in ipairs({ 'sessions', 'grants' }) do
  local list = {}
  if type(p[k]) == 'table' then
    for _, e in ipairs(p[k]) do
      if k ~= kind or (tonumber(e.exp) > now and e.id ~= ARGV[3]) then table.insert(list, e) end
    end
  end
  if k == kind then table.insert(list, { id = ARGV[3], exp = tonumber(ARGV[4]) }) end
  local parts = {}
  for i, e in ipairs(list) do
    parts[i] = cjson.encode({ id = e.id, exp = e.exp })
    local x = tonumber(e.exp)
    if maxExp == nil or x > maxExp then maxExp = x end
  end
  lists[k] = '[' .. table.concat(parts, ',') .. ']'
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'payload', '{"sessions":' .. lists.sessions .. ',"grants":' .. lists.grants .. '}')
redis.call('EXPIRE', KEYS[1], math.max(1, math.ceil(maxExp - now)))
return 1`;

/**
 * Deletes the members of a grant set that belong to a grant-linked model (ARGV: their key prefixes). The filter
 * also protects Interactions and Sessions that an older version of this adapter put in the set.
 */
export const REVOKE_GRANT = `
local members = redis.call('SMEMBERS', KEYS[1])
local n = 0
for _, key in ipairs(members) do
  for _, p in ipairs(ARGV) do
    if string.sub(key, 1, #p) == p then redis.call('DEL', key); n = n + 1; break end
  end
end
redis.call('DEL', KEYS[1])
return n`;
