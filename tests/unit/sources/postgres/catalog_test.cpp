// Which existing slot a source that recorded it was creating one may take for its own.
#include "sources/postgres/catalog.h"

#include <catch2/catch.hpp>

using namespace cdcd;
using namespace cdcd::postgres;

TEST_CASE("a slot reserving WAL from the recorded position on, not in use, is the one created") {
    const Lsn before = 0x1000;
    SlotInfo slot{"pgoutput", "cdcd", false, 0x1100, 0x1000};
    CHECK(created_after(slot, before));
    slot.restart_lsn = 0x2000;
    CHECK(created_after(slot, before));
    // Made before the source set out to create it: someone else's.
    slot.restart_lsn = 0x0FFF;
    CHECK_FALSE(created_after(slot, before));
    // In use by a live connection: not a slot left by a killed cdcd.
    slot.restart_lsn = 0x1000;
    slot.active = true;
    CHECK_FALSE(created_after(slot, before));
    // Not reserving WAL (invalidated): nothing to tell it by.
    slot.active = false;
    slot.restart_lsn.reset();
    CHECK_FALSE(created_after(slot, before));
}
