// Link: B / bandwidth + latency, serialised per direction; and the same
// through a TLM socket of the I/O ring, whose channels share the system's
// I/O bandwidth.
#include <gtest/gtest.h>

#include "hw/system/IoRing.h"
#include "hw/system/Link.h"
#include "testbench/tests/system/SystemTestSupport.h"

namespace wsesim::system {
namespace {

using testing::us;

// The ring of a 994-row wafer (IoRing's third argument).
wafer::IoParams ringOf994Rows(unsigned channelsPerEdge, double bytesPerS) {
  wafer::IoParams io;
  io.channelsPerEdge = channelsPerEdge;
  io.bandwidthBytesPerS = bytesPerS;
  return io;
}

// 300,000 B at 150e9 B/s = 2 us of serialisation; latency 3 us:
// first byte at 0 + 3 = 3 us, last at 2 + 3 = 5 us.
TEST(Link, TransferTakesBytesOverBandwidthPlusLatency) {
  Link link(150e9, us(3));
  const LinkTransfer t = link.send(us(0), 300000);
  EXPECT_EQ(t.start, us(0));
  EXPECT_EQ(t.head, us(3));
  EXPECT_EQ(t.tail, us(5));
  EXPECT_EQ(link.stats().bytes, 300000u);
  EXPECT_EQ(link.stats().busy, us(2));
}

// Both offered at 0: the second leaves when the first has left (2 us), so
// its last byte arrives at 2 + 2 + 3 = 7 us. A third offered at 10 us finds
// the link free: 10 + 2 + 3 = 15 us.
TEST(Link, ASecondTransferWaitsForTheFirst) {
  Link link(150e9, us(3));
  link.send(us(0), 300000);
  const LinkTransfer second = link.send(us(0), 300000);
  EXPECT_EQ(second.start, us(2));
  EXPECT_EQ(second.tail, us(7));
  EXPECT_EQ(link.send(us(10), 300000).tail, us(15));
  EXPECT_EQ(link.stats().transfers, 3u);
}

// In the earliest idle time (a store's order), 2 us transfers: offered at
// 10 us, [10, 12]; at 0 us, [0, 2]; at 1 us, [2, 4], before the one at 10
// (offered in order it would have waited for it: [12, 14]); at 9 us it
// would end at 11, past 10: [12, 14]. A cut-through stream from 4 us that
// the link must wait for until 9 us fits the idle time before 10: [4, 9].
TEST(Link, EarliestGapTakesTheIdleTimeFromItsOffer) {
  Link link(150e9, us(3), LinkOrder::EarliestGap);
  EXPECT_EQ(link.send(us(10), 300000).start, us(10));
  EXPECT_EQ(link.send(us(0), 300000).start, us(0));
  EXPECT_EQ(link.send(us(1), 300000).start, us(2));
  const LinkTransfer late = link.send(us(9), 300000);
  EXPECT_EQ(late.start, us(12));
  EXPECT_EQ(late.tail, us(17));
  EXPECT_EQ(link.forward(us(4), us(9), 300000).start, us(4));
  EXPECT_EQ(link.stats().transfers, 5u);
}

// Cut-through from a slower stream: the bytes arrive at the sender between
// 1 us and 6 us; the link could send them in 2 us but must wait for the
// last: it finishes at 6 us, the last byte arrives at 6 + 3 = 9 us.
TEST(Link, CutThroughFinishesNoEarlierThanItsInput) {
  Link link(150e9, us(3));
  const LinkTransfer t = link.forward(us(1), us(6), 300000);
  EXPECT_EQ(t.start, us(1));
  EXPECT_EQ(t.head, us(4));
  EXPECT_EQ(t.tail, us(9));
}

// wse2: 60 channels per edge, 994 rows. Channel k of an edge feeds row
// (2k + 1) * 994 / 120: k = 0 -> 8, k = 59 -> 985; West first, then East.
TEST(IoRing, ChannelsSitOnBothEdgesAboutSixteenRowsApart) {
  IoRing ring("ring", ringOf994Rows(60, 150e9), 994);
  testing::StubTarget network("network");
  for (auto& out : ring.channel_out) out.bind(network.in);
  ASSERT_EQ(ring.channels(), 120u);
  EXPECT_EQ(ring.channel(0).edge, fabric::Port::West);
  EXPECT_EQ(ring.channel(0).row, 8u);
  EXPECT_EQ(ring.channel(1).row, 24u);  // 3 * 994 / 120 = 24.85
  EXPECT_EQ(ring.channel(59).row, 985u);
  EXPECT_EQ(ring.channel(60).edge, fabric::Port::East);
  EXPECT_EQ(ring.channel(60).row, 8u);
  // 150e9 / 120 channels = 1.25e9 B/s each.
  EXPECT_DOUBLE_EQ(ring.channelBytesPerS(), 1.25e9);
}

// 2e9 B/s over 2 x 1 channels = 1e9 B/s per channel (every socket must be
// bound, so few channels). Through channel 0's socket, 1000 B written at
// 2 us arrive by 2 + 1 = 3 us; a second 1000 B on the same channel waits
// (4 us); on channel 1 it does not (3 us). Byte 500 of the first reaches
// the edge at 2 + 0.5 = 2.5 us.
TEST(IoRing, AWriteThroughAChannelSocketTakesBytesOverTheChannelBandwidth) {
  IoRing ring("ring", ringOf994Rows(1, 2e9), 994);
  testing::StubInitiator west("west"), east("east");
  west.out.bind(ring.channel_in[0]);
  east.out.bind(ring.channel_in[1]);
  testing::StubInitiator waferWest("wafer_west"), waferEast("wafer_east");
  waferWest.out.bind(ring.egress_in[0]);
  waferEast.out.bind(ring.egress_in[1]);
  testing::StubTarget network("network");
  for (auto& out : ring.channel_out) out.bind(network.in);
  std::vector<sc_core::sc_time> done;
  testing::Stimulus stimulus("stimulus", [&] {
    for (auto* feed : {&west, &west, &east}) done.push_back(testing::writeBytes(feed->out, 0, 1000, us(2)));
  });
  sc_core::sc_start();
  EXPECT_EQ(done, (std::vector<sc_core::sc_time>{us(3), us(4), us(3)}));
  ASSERT_EQ(ring.ingress().size(), 3u);
  EXPECT_EQ(ring.ingress()[2].channel, 1u);
  EXPECT_EQ(ring.byteArrival(ring.ingress()[0], 500), us(2.5));
  EXPECT_EQ(ring.ingressStats().bytes, 3000u);
}

// Egress, cut-through: 1000 B the wafer computes from 1 us to 3 us leave
// through channel 0 (1e9 B/s: 1 us of bytes) as they are computed, first
// byte at 1 us, last at 3 us. Then 3000 B computed from 4 us to 6 us: the
// channel cannot keep up (3 us of bytes), the last leaves at 4 + 3 = 7 us.
TEST(IoRing, EgressForwardsAsTheWaferComputesNoFasterThanTheChannel) {
  IoRing ring("ring", ringOf994Rows(1, 2e9), 994);
  testing::StubInitiator west("west"), east("east"), wafer("wafer"), unused("unused");
  west.out.bind(ring.channel_in[0]);
  east.out.bind(ring.channel_in[1]);
  wafer.out.bind(ring.egress_in[0]);
  unused.out.bind(ring.egress_in[1]);
  testing::StubTarget network("network");
  for (auto& out : ring.channel_out) out.bind(network.in);
  testing::Stimulus stimulus("stimulus", [&] {
    for (std::uint64_t bytes : {1000u, 3000u}) {
      tlm::tlm_generic_payload p;
      p.set_command(tlm::TLM_WRITE_COMMAND);
      p.set_data_length(unsigned(bytes));
      p.set_streaming_width(unsigned(bytes));
      const sc_core::sc_time begin = sc_core::sc_time_stamp() + us(1);
      const StreamTimingScope stream(p, begin, begin + us(2));
      sc_core::sc_time delay = begin + us(2) - sc_core::sc_time_stamp();
      wafer.out->b_transport(p, delay);
      EXPECT_TRUE(p.is_response_ok());
      wait(delay);
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(network.received.size(), 2u);
  EXPECT_EQ(network.heads[0], us(1));
  EXPECT_EQ(network.received[0].at, us(3));
  EXPECT_EQ(network.heads[1], us(4));
  EXPECT_EQ(network.received[1].at, us(7));
  EXPECT_EQ(ring.egressStats().bytes, 4000u);
  EXPECT_EQ(ring.egress().size(), 2u);
}

}  // namespace
}  // namespace wsesim::system
