#pragma once
// What the listing commands (presets, models) share: their one option,
// --format table (for people) or json (for scripts: sweep.py digests the
// files a listing names), and the frame of their JSON document.

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wsesim::cli {

enum class ListingFormat { kTable, kJson };

// argv[0] is the command's name. On a bad argument prints why and the
// command's usage on `err` and returns nothing (exit status kUsageError).
std::optional<ListingFormat> parseListingFormat(int argc, char** argv, std::ostream& err);

// {DIR_KEY: dir, "wsesim_version": ..., LIST_KEY: entries}, each entry with
// its "name" and "file".
nlohmann::json listingDocument(const std::string& dirKey, const std::filesystem::path& dir,
                               const std::string& listKey, nlohmann::json entries);

}  // namespace wsesim::cli
