// Issue 29, items 2 and 8: what an output path names decides how it is
// written (docs/configuration.md, "Output paths"). A character device or a
// FIFO is written directly, never replaced by a renamed file; a symlink is
// written through; `-` and a link to /proc/self/fd/1 are standard output;
// an input of the run and a file two outputs name are refused.
//
// Every test works on nodes it makes in its own folder (a device node made
// with mknod, a FIFO, a symlink): run against the old code, which renamed a
// file over whatever the path named, they fail without harming the host's
// own /dev/null. The one test that writes the real /dev/null first checks
// the same behaviour on a FIFO of its own and stops there if it was replaced.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>

#include "testbench/results/PartialFiles.h"
#include "testbench/tests/cli/CliFixture.h"

namespace {

using namespace wsesim::clitest;

const char* const kOptions[] = {"--out", "--vcd", "--map", "--timeline"};

class OutputPaths : public Cli {
 protected:
  void SetUp() override { writeFile(work("run.yaml"), kSmallRun); }

  // A character device node in the work folder, like /dev/null (1, 3) or
  // /dev/full (1, 7); false where mknod is not permitted.
  bool makeDevice(const std::string& name, unsigned minor) {
    return ::mknod(work(name).c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }
  bool isDevice(const std::string& name, unsigned minor) {
    struct stat st;
    return ::lstat(work(name).c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, minor);
  }
  static bool isFifo(const fs::path& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  }
  // Runs wsesim with a reader of the FIFO `fifo` (in the work folder)
  // copying what it reads to `copy` (in the capture folder). The reader
  // gives up after 20 s: a FIFO replaced by a file never gets a writer.
  Outcome wsesimReadingFifo(const std::string& args, const std::string& fifo, const std::string& copy) {
    return wsesim(args, "sh -c 'timeout 20 cat " + fifo + " > \"" + scratch(copy).string() +
                            "\" & \"$0\" \"$@\"; status=$?; wait; exit $status'");
  }
};

TEST_F(OutputPaths, ACharacterDeviceIsWrittenDirectlyNeverReplaced) {
  if (!makeDevice("null", 3)) GTEST_SKIP() << "mknod is not permitted here: " << std::strerror(errno);
  for (const char* option : kOptions) {
    const Outcome o = wsesim(std::string("run run.yaml ") + option + " null");
    EXPECT_EQ(o.status, 0) << option << "\n" << o.err;
    EXPECT_TRUE(isDevice("null", 3)) << option << " replaced the device node";
    EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "null"})) << option;
  }
}

TEST_F(OutputPaths, AFullDeviceFailsWithNoSpaceAndExitFour) {
  if (!makeDevice("full", 7)) GTEST_SKIP() << "mknod is not permitted here: " << std::strerror(errno);
  for (const char* option : kOptions) {
    const Outcome o = wsesim(std::string("run run.yaml ") + option + " full");
    EXPECT_EQ(o.status, 4) << option << "\n" << o.err;  // Cli.h: kOutputError
    EXPECT_EQ(o.err, std::string("wsesim: cannot write ") + option + " full: No space left on device\n");
    EXPECT_TRUE(isDevice("full", 7)) << option << " replaced the device node";
    EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "full"})) << option;
  }
}

TEST_F(OutputPaths, AFifoIsWrittenToItsReader) {
  ASSERT_EQ(::mkfifo(work("pipe").c_str(), 0644), 0);
  Outcome o = wsesimReadingFifo("run run.yaml --out pipe", "pipe", "copy.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(isFifo(work("pipe"))) << "the FIFO was replaced";
  EXPECT_EQ(json::parse(readFile(scratch("copy.json"))).at("cycles"), 2106);
  o = wsesimReadingFifo("run run.yaml --vcd pipe", "pipe", "copy.vcd");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(isFifo(work("pipe"))) << "the FIFO was replaced";
  EXPECT_EQ(readFile(scratch("copy.vcd")).rfind("$date", 0), 0u);
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "pipe"}));
}

TEST_F(OutputPaths, DashAndALinkToDescriptorOneWriteToStandardOutput) {
  ASSERT_EQ(::symlink("/proc/self/fd/1", work("stdout").c_str()), 0);
  for (const std::string name : {"-", "stdout"}) {
    Outcome o = wsesim("run run.yaml --out " + name);
    ASSERT_EQ(o.status, 0) << name << "\n" << o.err;
    // stdout holds the result alone; the summary moved to stderr.
    EXPECT_EQ(json::parse(o.out).at("cycles"), 2106) << name;
    expectMentions(o.err, {"NoC uniform_random", "results:  " + name});
    o = wsesim("run run.yaml --vcd " + name + " --out result.json");
    ASSERT_EQ(o.status, 0) << name << "\n" << o.err;
    EXPECT_EQ(o.out.rfind("$date", 0), 0u) << name;
    EXPECT_NE(o.out.find("$enddefinitions"), std::string::npos) << name;
    std::error_code ec;
    fs::remove(work("result.json"), ec);
    EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "stdout"})) << name;
  }
  EXPECT_TRUE(fs::is_symlink(work("stdout")));
}

TEST_F(OutputPaths, ASymlinkIsWrittenThroughAndStaysALink) {
  fs::create_directory(work("sub"));
  ASSERT_EQ(::symlink("sub/real.json", work("link.json").c_str()), 0);  // dangling: created through it
  ASSERT_EQ(::symlink("link.json", work("chain.vcd").c_str()), 0);
  ASSERT_EQ(::symlink("../sub/map.json", work("sub/map-link.json").c_str()), 0);  // relative to its folder
  fs::create_directory(work("other"));
  Outcome o = wsesim("run run.yaml --out link.json --map other/../sub/map-link.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(fs::read_symlink(work("link.json")), "sub/real.json");
  EXPECT_EQ(json::parse(readFile(work("sub/real.json"))).at("cycles"), 2106);
  EXPECT_TRUE(fs::is_symlink(work("sub/map-link.json")));
  EXPECT_TRUE(json::parse(readFile(work("sub/map.json"))).is_object());
  // A chain of links is followed to its end, the waveform written there.
  o = wsesim("run run.yaml --vcd chain.vcd");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::is_symlink(work("chain.vcd")));
  EXPECT_EQ(readFile(work("sub/real.json")).rfind("$date", 0), 0u);
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "sub", "other", "link.json", "chain.vcd"}));
  std::set<std::string> inSub;
  for (const auto& entry : fs::directory_iterator(work("sub"))) inSub.insert(entry.path().filename().string());
  EXPECT_EQ(inSub, (std::set<std::string>{"real.json", "map-link.json", "map.json"}));
  // A loop of links is a clean error.
  ASSERT_EQ(::symlink("loop2", work("loop1").c_str()), 0);
  ASSERT_EQ(::symlink("loop1", work("loop2").c_str()), 0);
  o = wsesim("run run.yaml --out loop1");
  EXPECT_EQ(o.status, 4) << o.err;
  EXPECT_EQ(o.err, "wsesim: cannot write --out loop1: too many levels of symbolic links from 'loop1'\n");
}

TEST_F(OutputPaths, AFileTheRunReadsIsNeverAnOutput) {
  const std::string runFile = readFile(work("run.yaml"));
  ASSERT_EQ(::symlink("run.yaml", work("alias.yaml").c_str()), 0);
  ASSERT_EQ(::link(work("run.yaml").c_str(), work("hard.yaml").c_str()), 0);
  for (const std::string args : {"--out run.yaml", "--vcd ./run.yaml", "--map alias.yaml", "--timeline hard.yaml"}) {
    const Outcome o = wsesim("run run.yaml " + args);
    EXPECT_EQ(o.status, 4) << args << "\n" << o.err;  // before the simulation: no summary
    expectMentions(o.err, {"wsesim: cannot write " + args + ": it is run.yaml, the configuration file this run reads"});
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
    EXPECT_EQ(readFile(work("run.yaml")), runFile) << args;
  }
  // A model file and a preset are inputs too.
  fs::copy_file(WSESIM_SOURCE_DIR "/models/zoo/tiny.yaml", work("tiny.yaml"));
  const std::string model = readFile(work("tiny.yaml"));
  writeFile(work("train.yaml"), "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, model: tiny.yaml, batch: 2}\n");
  Outcome o = wsesim("run train.yaml --out tiny.yaml");
  EXPECT_EQ(o.status, 4) << o.err;
  expectMentions(o.err, {"cannot write --out tiny.yaml: it is tiny.yaml, the model file this run reads"});
  EXPECT_EQ(readFile(work("tiny.yaml")), model);
  fs::create_directory(work("presets"));
  for (const char* preset : {"wse2", "tiny"})
    fs::copy_file(std::string(WSESIM_SOURCE_DIR "/hw/config/presets/") + preset + ".yaml",
                  work(std::string("presets/") + preset + ".yaml"));
  o = wsesim("run run.yaml --vcd presets/wse2.yaml", "WSESIM_PRESET_DIR=presets");
  EXPECT_EQ(o.status, 4) << o.err;
  expectMentions(o.err, {"cannot write --vcd presets/wse2.yaml: it is presets/wse2.yaml, the preset this run reads"});
}

TEST_F(OutputPaths, TwoOutputsNamingOneFileAreRefused) {
  ASSERT_EQ(::symlink("a.json", work("b.json").c_str()), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"--out a.json --vcd a.json", "--vcd a.json: --out a.json names the same file"},
      {"--out a.json --map ./a.json", "--map ./a.json: --out a.json names the same file"},
      {"--out a.json --timeline b.json", "--timeline b.json: --out a.json names the same file"},
      {"--out - --vcd -", "--vcd -: --out - names the same file"},
      // The system model's waveform goes beside the waveform, as trace_system.vcd.
      {"--out t_system.vcd --vcd t.vcd", "--vcd t_system.vcd: --out t_system.vcd names the same file"},
  };
  for (const auto& [args, mention] : cases) {
    const Outcome o = wsesim("run run.yaml " + args);
    EXPECT_EQ(o.status, 4) << args << "\n" << o.err;
    EXPECT_EQ(o.err, "wsesim: cannot write " + mention + "; give each output its own\n") << args;
    EXPECT_EQ(o.out, "") << args;
    EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "b.json"})) << args;
  }
}

TEST_F(OutputPaths, DirectoriesSocketsAndBlockDevicesAreRefused) {
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string sockPath = work("sock").string();
  ASSERT_LT(sockPath.size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, sockPath.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  fs::create_directory(work("dir"));
  ASSERT_EQ(::symlink("dir", work("dirlink").c_str()), 0);
  std::vector<std::pair<std::string, std::string>> cases = {
      {"--out sock", "'sock' is a socket: an output is a regular file, a character device, a FIFO or -"},
      {"--vcd dirlink", "'dirlink' is a directory (through the symlink to 'dir')"},
  };
  const bool block = ::mknod(work("block").c_str(), S_IFBLK | 0600, makedev(7, 200)) == 0;
  if (block) cases.push_back({"--map block", "'block' is a block device"});
  for (const auto& [args, mention] : cases) {
    const Outcome o = wsesim("run run.yaml " + args);
    EXPECT_EQ(o.status, 4) << args << "\n" << o.err;
    expectMentions(o.err, {"wsesim: cannot write " + args + ": " + mention});
  }
  struct stat st;
  ASSERT_EQ(::lstat(work("sock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  if (block) {
    EXPECT_TRUE(::lstat(work("block").c_str(), &st) == 0 && S_ISBLK(st.st_mode));
  }
  ::close(sock);
}

// Item 3: SystemC never checks the waveform's writes; the old code reported
// a waveform cut short by a full disk as written (exit 0). kSmallRun's
// waveform takes about 116 KB.
TEST_F(OutputPaths, AWaveformOnAFullDiskFailsWithExitFourAndLeavesNothing) {
  // A 64 KiB tmpfs in a mount namespace of the run's own (gone with it).
  fs::create_directory(work("disk"));
  const std::string mount = "unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs disk && cd disk && ";
  if (std::system(("cd '" + work("").string() + "' && " + mount + "true' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "no tmpfs can be mounted here (needs root and a mount namespace)";
  const Outcome o = wsesim("run ../run.yaml --out result.json --vcd trace.vcd",
                           mount + "\"$0\" \"$@\"; status=$?; ls -A > ../listing; exit $status'");
  EXPECT_EQ(o.status, 4) << o.err;  // Cli.h: kOutputError
  EXPECT_EQ(o.err, "wsesim: cannot write --vcd trace.vcd: No space left on device\n");
  EXPECT_EQ(readFile(work("listing")), "") << "the full disk kept files";
  EXPECT_EQ(o.out.find("waveform:"), std::string::npos) << o.out;
}

TEST_F(OutputPaths, AWaveformPastTheFileSizeLimitFailsWithExitFour) {
  // The same failure anywhere, without privileges: a write past RLIMIT_FSIZE
  // fails (EFBIG) where the disk would have filled. It used to kill wsesim
  // with SIGXFSZ.
  const std::string limit = "bash -c 'ulimit -f 48 && exec \"$0\" \"$@\"'";  // 48 KiB
  Outcome o = wsesim("run run.yaml --vcd trace.vcd --out result.json", limit);
  EXPECT_EQ(o.status, 4) << o.err;
  EXPECT_EQ(o.err, "wsesim: cannot write --vcd trace.vcd: File too large\n");
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
  // The result alone (7 KB) fits.
  o = wsesim("run run.yaml --out result.json", limit);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "result.json"}));
}

// Item 4: an interrupted run removes its unfinished outputs, says so, and
// exits 128 + the signal's number. The old code died silently, leaving
// TRACE.vcd.partial.vcd.
TEST_F(OutputPaths, AnInterruptedRunRemovesItsUnfinishedOutputsAndSaysSo) {
  // 20 million cycles with a waveform: far longer than the test waits.
  writeFile(work("run.yaml"), std::string(kSmallRun) + "  drain_cycles: 0\n");
  const std::pair<const char*, int> signals[] = {{"TERM", 15}, {"INT", 2}, {"HUP", 1}};
  for (const auto& [name, number] : signals) {
    // Signalled once the waveform's temporary exists, i.e. while it runs.
    // (sh starts a background command with SIGINT ignored, which wsesim
    // respects, as a background job should: env restores it.)
    const std::string signalIt = "TMPDIR='" + scratch("").string() +
                                 "' sh -c 'env --default-signal=INT \"$0\" \"$@\" & pid=$!; i=0; "
                                 "while [ ! -e trace.vcd.tmp.$pid ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
                                 "kill -" + name + " $pid; wait $pid'";
    const Outcome o = wsesim("run run.yaml --set workload.measure_cycles=20000000 --vcd trace.vcd --out result.json",
                             signalIt);
    EXPECT_EQ(o.status, 128 + number) << name << "\n" << o.err;
    EXPECT_EQ(o.err, std::string("wsesim: interrupted by SIG") + name + "; unfinished output files removed\n");
    EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"}) << name;
    // Nor is the waveform's pipe left in the temporary folder.
    for (const auto& entry : fs::directory_iterator(scratch("")))
      EXPECT_EQ(entry.path().filename().string().rfind("wsesim-vcd-", 0), std::string::npos) << entry.path();
  }
}

TEST_F(OutputPaths, TheTemporariesOfAKilledRunAreRemovedByTheNextOne) {
  // SIGKILL cannot be caught: the next run naming the same output clears
  // what the killed one left, once its process is gone and the file has
  // not changed for a minute.
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const std::string dead = std::to_string(gone), alive = std::to_string(::getpid());
  const std::vector<std::string> left = {"trace.vcd.partial.vcd", "trace.vcd.tmp." + dead, "trace.vcd.tmp." + alive,
                                         "result.json.tmp." + dead, "fresh.json.tmp." + dead, "other.json.tmp." + dead};
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(2);
  for (const std::string& name : left) {
    writeFile(work(name), "cut short");
    if (name != "fresh.json.tmp." + dead) fs::last_write_time(work(name), old);
  }
  const Outcome o = wsesim("run run.yaml --vcd trace.vcd --out result.json --map fresh.json");
  ASSERT_EQ(o.status, 0) << o.err;
  // Kept: a live process's, a fresh one's, one for a file this run does not write.
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "trace.vcd", "result.json", "fresh.json",
                                                   "trace.vcd.tmp." + alive, "fresh.json.tmp." + dead,
                                                   "other.json.tmp." + dead}));
}

TEST_F(OutputPaths, TheHostsDevNullIsStillACharacterDeviceAfterwards) {
  // The canary: a FIFO of our own, which the old code replaced. Only if it
  // survived may the real /dev/null be named.
  ASSERT_EQ(::mkfifo(work("canary").c_str(), 0644), 0);
  Outcome o = wsesimReadingFifo("run run.yaml --out canary", "canary", "canary.json");
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_TRUE(isFifo(work("canary"))) << "an output replaces the node it names: /dev/null is not tried";
  for (const char* option : kOptions) {
    o = wsesim(std::string("run run.yaml ") + option + " /dev/null");
    EXPECT_EQ(o.status, 0) << option << "\n" << o.err;
    struct stat st;
    ASSERT_EQ(::lstat("/dev/null", &st), 0);
    ASSERT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a character device after " << option;
    EXPECT_EQ(st.st_rdev, makedev(1, 3));
  }
  o = wsesim("run run.yaml --out /dev/full");
  EXPECT_EQ(o.status, 4);
  EXPECT_EQ(o.err, "wsesim: cannot write --out /dev/full: No space left on device\n");
  o = wsesim("run run.yaml --out /dev/stdout");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(json::parse(o.out).at("cycles"), 2106);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "canary"}));
}

}  // namespace

// Once a run's outcome is decided (RunCommand calls concludeRun before its
// last line), an interrupt no longer turns it into an interrupted run: the
// signal stays pending and dies with the process, which exits as it was
// going to (the handler would _exit(143) and print a second line).
TEST(ConcludedRun, AnInterruptAfterTheOutcomeChangesNothing) {
  wsesim::results::removePartialFilesOnInterrupt();
  wsesim::results::concludeRun();
  ASSERT_EQ(::raise(SIGTERM), 0);
  sigset_t pending;
  ASSERT_EQ(::sigpending(&pending), 0);
  EXPECT_EQ(::sigismember(&pending, SIGTERM), 1);
}
