// hw/config/StrictYaml: a key given twice at any depth, a second document and
// bytes that are not UTF-8 are errors naming where; what yaml-cpp accepts
// otherwise is unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testbench/tests/config/ConfigTestUtil.h"
#include "hw/config/StrictYaml.h"

namespace wsesim::yaml {
namespace {

using config::testing::expectMentions;

std::string errorOf(const std::string& text) {
  try {
    loadOneDocument(text, "t.yaml");
  } catch (const YamlError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a YamlError for:\n" << text;
  return "";
}

TEST(StrictYaml, ARepeatedKeyAtAnyDepthNamesItsPathAndBothLines) {
  expectMentions(errorOf("a: 1\nb: 2\na: 3\n"), {"t.yaml", "key 'a' is given twice", "lines 1 and 3"});
  expectMentions(errorOf("a:\n  b:\n    c: 1\n    d: 2\n    c: 3\n"), {"'a.b.c' is given twice", "lines 3 and 5"});
  expectMentions(errorOf("a:\n  - x: 1\n  - x: 1\n    x: 2\n"), {"'a[1].x' is given twice", "lines 3 and 4"});
  expectMentions(errorOf("{a: 1, a: 2}\n"), {"'a' is given twice", "lines 1 and 1"});
}

TEST(StrictYaml, EqualKeysInDifferentMappingsAreFine) {
  const YAML::Node root = loadOneDocument("a: {x: 1}\nb: {x: 2}\nc:\n  - x: 3\n  - x: 4\n", "t.yaml");
  EXPECT_EQ(root["b"]["x"].as<int>(), 2);
  EXPECT_EQ(root["c"][1]["x"].as<int>(), 4);
}

TEST(StrictYaml, ASecondDocumentIsAnErrorNamingTheLineOfItsMarker) {
  expectMentions(errorOf("a: 1\n---\nb: 2\n"), {"a second YAML document starts at line 2"});
  expectMentions(errorOf("a: 1\nb: 2\n---\n"), {"a second YAML document starts at line 3"});
  expectMentions(errorOf("---\na: 1\n---\nb: 2\n"), {"a second YAML document starts at line 3"});
  // An explicit start of the only document, and an end marker, are one document.
  EXPECT_EQ(loadOneDocument("---\na: 1\n...\n", "t.yaml")["a"].as<int>(), 1);
  EXPECT_TRUE(loadOneDocument("", "t.yaml").IsNull());
}

TEST(StrictYaml, TextThatIsNotUtf8IsAnErrorNamingItsLine) {
  expectMentions(errorOf("a: 1\nb: \xff\n"), {"t.yaml: line 2 is not UTF-8 text (byte 8)"});
  EXPECT_EQ(loadOneDocument("name: \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n", "t.yaml")["name"].as<std::string>(),
            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(StrictYaml, AValueThatContainsItselfThroughAnAliasIsAnError) {
  // Issue 29, item 1: these crashed every walk of the document (SIGSEGV).
  expectMentions(errorOf("loop: &L\n  me: *L\n"),
                 {"t.yaml: 'loop.me' refers through an alias to 'loop'", "which contains it"});
  expectMentions(errorOf("&a [*a]\n"), {"'[0]' refers through an alias to (the top level)"});
  expectMentions(errorOf("a: &a\n  b:\n    - c: 1\n    - d: *a\n"), {"'a.b[1].d' refers through an alias to 'a'"});
  // An alias of a finished node, even the same one twice, is no cycle.
  const YAML::Node root = loadOneDocument("base: &b {x: 1}\none: *b\ntwo: {in: *b, again: *b}\n", "t.yaml");
  EXPECT_EQ(root["two"]["again"]["x"].as<int>(), 1);
}

TEST(StrictYaml, AliasesOfAliasesStopAtAHundredThousandValues) {
  // Item 5: 20 levels of two aliases each is 2^20 values from 700 bytes.
  std::string bomb = "a0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i < 20; ++i)
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" + std::to_string(i - 1) + ", q: *a" +
            std::to_string(i - 1) + "}\n";
  expectMentions(errorOf(bomb), {"t.yaml: more than 100000 values once its aliases are expanded"});
  // About 2^16 values are fine.
  std::string fine = "a0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i < 14; ++i)
    fine += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" + std::to_string(i - 1) + ", q: *a" +
            std::to_string(i - 1) + "}\n";
  EXPECT_TRUE(loadOneDocument(fine, "t.yaml").IsMap());
}

TEST(StrictYaml, Utf8IsCheckedByteExactly) {
  EXPECT_EQ(firstNonUtf8Byte("plain ascii"), std::string::npos);
  EXPECT_EQ(firstNonUtf8Byte("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"), std::string::npos);
  EXPECT_EQ(firstNonUtf8Byte("ab\xff"), 2u);          // never a UTF-8 byte
  EXPECT_EQ(firstNonUtf8Byte("\xc0\xaf"), 0u);        // overlong '/'
  EXPECT_EQ(firstNonUtf8Byte("x\xe0\x80\xaf"), 1u);   // overlong, three bytes
  EXPECT_EQ(firstNonUtf8Byte("\xed\xa0\x80"), 0u);    // a UTF-16 surrogate
  EXPECT_EQ(firstNonUtf8Byte("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(firstNonUtf8Byte("ok\xe2\x82"), 2u);      // cut short
  EXPECT_EQ(firstNonUtf8Byte("\xe2(\xac"), 0u);       // a continuation byte missing
}

TEST(StrictYaml, ReadingADirectoryOrAMissingFileNamesThePath) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  try {
    readTextFile(dir, "configuration file");
    ADD_FAILURE() << "a directory was read";
  } catch (const YamlError& e) {
    expectMentions(e.what(), {"cannot read configuration file", dir.c_str(), "it is a directory"});
  }
  try {
    readTextFile(dir / "wsesim-no-such-file.yaml", "preset");
    ADD_FAILURE() << "a missing file was read";
  } catch (const YamlError& e) {
    expectMentions(e.what(), {"cannot open preset", "wsesim-no-such-file.yaml", "No such file or directory"});
  }
}

}  // namespace
}  // namespace wsesim::yaml
