#include "pipeline/runtime/tap.h"

#include <algorithm>
#include <optional>

#include "pipeline/runtime/tap_line_format.h"
#include "pipeline/schema/schema_change_apply.h"

namespace cdcd {

Tap::Tap(TapRequest request, const SensitiveColumns& sensitive, metrics::Counter& dropped)
    : request_(std::move(request)),
      filter_(request_.table.empty() ? nullptr : Selectors::parse(request_.table, nullptr)),
      sensitive_(sensitive),
      dropped_(dropped),
      // A tenth of a second's budget at most in one batch, so samples spread over batches.
      bucket_(request_.rate, request_.rate / 10.0, TapTokenBucket::Clock::now()),
      queue_(kMaxQueuedLines, kMaxQueuedBytes),
      random_(std::random_device{}()) {
    if (!request_.table.empty() && !filter_)
        throw TapRequestError("tap: parameter table: invalid table selector");
}

bool Tap::wanted(TableId table) {
    if (!filter_) return true;
    if (!asked_ || !(table == last_table_)) {
        asked_ = true;
        last_table_ = table;
        last_wanted_ = filter_->matches(table);
    }
    return last_wanted_;
}

void Tap::offer(EventSelection batch, const TapSchemaLookup& lookup, int writer,
                TapTokenBucket::Clock::time_point now) {
    if (batch.empty() || complete_.load(std::memory_order_relaxed)) return;
    std::size_t budget = bucket_.available(now);
    if (budget == 0) return;
    if (request_.limit > 0) budget = std::min<std::size_t>(budget, request_.limit - queued_);
    // Candidates every `stride` events from a random start, so that a tap sees the whole batch
    // and not only its first events; a candidate of a table not wanted passes to the next event.
    const std::size_t stride = std::max<std::size_t>(1, batch.size() / budget);
    std::size_t next = std::uniform_int_distribution<std::size_t>(0, stride - 1)(random_);
    // Schemas as of each event of this batch. Only tables whose schema is known before their
    // first change in the batch are shown: the lookup answers for the batch's start at the
    // source point but for its end at the others.
    std::vector<std::pair<TableId, std::optional<Schema>>> schemas;
    auto entry = [&](TableId table) -> std::optional<Schema>* {
        for (auto& [t, s] : schemas)
            if (t == table) return &s;
        return nullptr;
    };
    std::size_t taken = 0;
    for (std::size_t i = 0; i < batch.size() && taken < budget; ++i) {
        const Event& event = batch[i];
        if (!is_data_change(event)) {
            TableId table = table_of(event);
            auto* known = entry(table);
            if (!known) {
                schemas.emplace_back(table, std::nullopt);
                known = &schemas.back().second;
            }
            if (const auto* create = std::get_if<CreateTableEvent>(&event)) {
                *known = create->schema;
            } else if (*known) {
                try {
                    *known = apply_schema_change(**known, *as_schema_change(event));
                } catch (const SchemaChangeError&) {
                    known->reset();
                }
            }
        }
        if (i < next || !wanted(table_of(event))) continue;
        const Schema* schema = nullptr;
        if (const auto* data = std::get_if<DataChangeEvent>(&event)) {
            auto* known = entry(data->table);
            if (!known) {
                const Schema* looked_up = lookup ? lookup(data->table) : nullptr;
                schemas.emplace_back(data->table,
                                     looked_up ? std::optional<Schema>(*looked_up) : std::nullopt);
                known = &schemas.back().second;
            }
            if (!*known) continue;  // not shown without its schema
            schema = &**known;
            auto arity = [&](const std::optional<Row>& row) {
                return !row || row->arity() == schema->size();
            };
            if (!arity(data->before) || !arity(data->after)) continue;
        }
        if (queue_.push(format_tap_line(request_.point, event, schema, sensitive_, writer)))
            ++queued_;
        else
            dropped_.inc();
        ++taken;
        next = i + stride;
    }
    bucket_.take(taken);
    if (request_.limit > 0 && queued_ >= request_.limit)
        complete_.store(true, std::memory_order_release);
}

std::size_t Tap::take(std::string& out) {
    return queue_.take_all(out);
}

}  // namespace cdcd
