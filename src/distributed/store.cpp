// Store's waiting, and the stores that need no I/O: HashStore and PrefixStore.
#include "nabla/distributed/store.h"

#include <algorithm>
#include <thread>

#include "nabla/core/error.h"

namespace nabla::distributed {

Store::~Store() = default;

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::vector<uint8_t> Store::get(const std::string& key) {
  wait({key});
  auto value = try_get(key);
  NABLA_CHECK(value.has_value(), describe(), ": key '", key, "' was deleted while being read");
  return *value;
}

void Store::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

// Stores are polled: waits are rare (rendezvous, a few per run) and short, and polling
// needs no notification channel between processes. The interval grows from 1 ms to 50.
void Store::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto start = std::chrono::steady_clock::now();
  auto interval = std::chrono::milliseconds(1);
  while (!check(keys)) {
    if (timeout > kNoTimeout && std::chrono::steady_clock::now() - start >= timeout) {
      std::string missing;
      for (const auto& k : keys)
        if (!check({k})) missing += (missing.empty() ? "'" : ", '") + k + "'";
      throw Error(str(describe(), ": waited ", timeout.count(), " ms for key(s) ", missing,
                      " that no process set (a rank that did not start, or a different "
                      "world size or master address on some rank?)"));
    }
    std::this_thread::sleep_for(interval);
    interval = std::min(interval * 2, std::chrono::milliseconds(50));
  }
}

// ---- HashStore ----------------------------------------------------------------------------

void HashStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_[key] = value;
}

std::vector<uint8_t> HashStore::compareSet(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    if (!expected.empty()) return expected;
    return map_[key] = desired;
  }
  if (it->second == expected) it->second = desired;
  return it->second;
}

int64_t HashStore::add(const std::string& key, int64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& bytes = map_[key];
  int64_t now = bytes.empty() ? 0 : std::stoll(std::string(bytes.begin(), bytes.end()));
  now += value;
  const std::string text = std::to_string(now);
  bytes.assign(text.begin(), text.end());
  return now;
}

bool HashStore::deleteKey(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.erase(key) > 0;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::all_of(keys.begin(), keys.end(), [&](const auto& k) { return map_.count(k) > 0; });
}

int64_t HashStore::getNumKeys() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(map_.size());
}

std::optional<std::vector<uint8_t>> HashStore::try_get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  return it->second;
}

// ---- PrefixStore --------------------------------------------------------------------------

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->getTimeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  NABLA_CHECK(store_ != nullptr, "PrefixStore('", prefix_, "'): the underlying store is null");
}

std::vector<std::string> PrefixStore::joined(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(joined(k));
  return out;
}

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  store_->set(joined(key), value);
}
std::vector<uint8_t> PrefixStore::compareSet(const std::string& key,
                                             const std::vector<uint8_t>& expected,
                                             const std::vector<uint8_t>& desired) {
  return store_->compareSet(joined(key), expected, desired);
}
std::vector<uint8_t> PrefixStore::get(const std::string& key) { return store_->get(joined(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t value) {
  return store_->add(joined(key), value);
}
bool PrefixStore::deleteKey(const std::string& key) { return store_->deleteKey(joined(key)); }
bool PrefixStore::check(const std::vector<std::string>& keys) {
  return store_->check(joined(keys));
}
int64_t PrefixStore::getNumKeys() { return store_->getNumKeys(); }
void PrefixStore::wait(const std::vector<std::string>& keys) { store_->wait(joined(keys)); }
void PrefixStore::wait(const std::vector<std::string>& keys,
                       const std::chrono::milliseconds& timeout) {
  store_->wait(joined(keys), timeout);
}
void PrefixStore::setTimeout(const std::chrono::milliseconds& timeout) {
  Store::setTimeout(timeout);
  store_->setTimeout(timeout);
}
std::optional<std::vector<uint8_t>> PrefixStore::try_get(const std::string& key) {
  if (!store_->check({joined(key)})) return std::nullopt;
  return store_->get(joined(key));
}
std::string PrefixStore::describe() const { return "PrefixStore '" + prefix_ + "'"; }

}  // namespace nabla::distributed
