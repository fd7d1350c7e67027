<?php
// Just enough of Laravel for app/ to run under `php -S` without a Laravel install (none is
// available offline): Request, JsonResponse, response(), config(), DB (a JSON file; a transaction
// holds an exclusive flock, as lockForUpdate holds the row lock) and Http (PHP streams).
// In a Laravel app, delete this folder: app/ is written against the real classes.

namespace Illuminate\Http {
    class Request
    {
        public function __construct(private string $body, private array $headers, private array $post) {}

        public static function capture(): self
        {
            $headers = [];
            foreach ($_SERVER as $k => $v) {
                if (str_starts_with($k, 'HTTP_')) $headers[strtolower(str_replace('_', '-', substr($k, 5)))] = $v;
            }
            $headers['content-type'] = $_SERVER['CONTENT_TYPE'] ?? '';
            return new self((string) file_get_contents('php://input'), $headers, $_POST);
        }

        public function getContent(): string { return $this->body; }
        public function header(string $name): ?string { return $this->headers[strtolower($name)] ?? null; }
        public function all(): array { return $this->post; }
        public function input(string $key): mixed
        {
            $json = str_contains((string) $this->header('content-type'), 'json') ? (json_decode($this->body, true) ?? []) : $this->post;
            return $json[$key] ?? null;
        }
    }

    class JsonResponse
    {
        public function __construct(public array $data, public int $status = 200) {}

        public function send(): void
        {
            http_response_code($this->status);
            header('Content-Type: application/json');
            echo json_encode($this->data), "\n";
        }
    }
}

namespace Illuminate\Support\Facades {
    use stdClass;

    class DB
    {
        private static ?array $tables = null;

        private static function file(): string { return (string) getenv('ORDERS_FILE'); }

        public static function read(): array
        {
            if (self::$tables !== null) return self::$tables;
            $text = @file_get_contents(self::file());
            return is_string($text) && $text !== '' ? json_decode($text, true) : ['orders' => []];
        }

        public static function write(array $tables): void
        {
            if (self::$tables === null) throw new \LogicException('writes happen inside DB::transaction here');
            self::$tables = $tables;
        }

        /** A new file, synced, renamed over the old one: a reader sees the old tables or the new, never half. */
        private static function store(array $tables): void
        {
            $tmp = self::file() . '.' . getmypid() . '.tmp';
            $fh = fopen($tmp, 'w');
            fwrite($fh, json_encode($tables));
            fflush($fh);
            fsync($fh);
            fclose($fh);
            rename($tmp, self::file());
        }

        /** Runs $fn holding an exclusive lock on the store; what it changed is written before the lock is released. */
        public static function transaction(callable $fn): mixed
        {
            $lock = fopen(self::file() . '.lock', 'c');
            $locking = !\App\Support\IpaymuCallback::bug('no-lock');
            if ($locking) flock($lock, LOCK_EX);
            self::$tables = null;
            self::$tables = self::read();
            try {
                $result = $fn();
                $tables = self::$tables;
                self::$tables = null;
                self::store($tables);
                return $result;
            } finally {
                self::$tables = null;
                if ($locking) flock($lock, LOCK_UN);
                fclose($lock);
            }
        }

        public static function table(string $name): Query { return new Query($name); }
    }

    class Query
    {
        private array $where = [];

        public function __construct(private string $table) {}

        public function where(string $column, mixed $value): self { $this->where[$column] = $value; return $this; }

        public function lockForUpdate(): self { return $this; }

        private function rows(): array
        {
            if ($this->table === 'shipments') {
                $lines = @file(getenv('ORDERS_FILE') . '.shipments', FILE_IGNORE_NEW_LINES) ?: [];
                return array_map(fn ($l) => json_decode($l, true), $lines);
            }
            return DB::read()[$this->table] ?? [];
        }

        private function matches(array $row): bool
        {
            foreach ($this->where as $k => $v) if (($row[$k] ?? null) != $v) return false;
            return true;
        }

        public function first(): ?stdClass
        {
            foreach ($this->rows() as $row) if ($this->matches($row)) return (object) $row;
            return null;
        }

        public function count(): int { return count(array_filter($this->rows(), fn ($r) => $this->matches($r))); }

        public function insert(array $row): void
        {
            if ($this->table === 'shipments') {
                // An append-only log: the side effect that must happen once per order.
                file_put_contents(getenv('ORDERS_FILE') . '.shipments', json_encode($row) . "\n", FILE_APPEND | LOCK_EX);
                return;
            }
            $tables = DB::read();
            $tables[$this->table][] = $row;
            DB::write($tables);
        }

        public function update(array $values): void
        {
            $tables = DB::read();
            foreach ($tables[$this->table] as $i => $row) if ($this->matches($row)) $tables[$this->table][$i] = $values + $row;
            DB::write($tables);
        }
    }

    class Http
    {
        public static function withHeaders(array $headers): PendingRequest { return new PendingRequest($headers); }
    }

    class PendingRequest
    {
        private string $body = '';
        private int $timeout = 30;

        public function __construct(private array $headers) {}

        public function withBody(string $body, string $type): self { $this->body = $body; $this->headers['Content-Type'] = $type; return $this; }
        public function timeout(int $seconds): self { $this->timeout = $seconds; return $this; }

        public function post(string $url): Response
        {
            $header = implode("\r\n", array_map(fn ($k, $v) => "$k: $v", array_keys($this->headers), $this->headers));
            $context = stream_context_create(['http' => ['method' => 'POST', 'header' => $header, 'content' => $this->body, 'timeout' => $this->timeout, 'ignore_errors' => true]]);
            return new Response((string) @file_get_contents($url, false, $context));
        }
    }

    class Response
    {
        public function __construct(private string $body) {}

        public function json(?string $key = null): mixed
        {
            $data = json_decode($this->body, true);
            return $key === null ? $data : (is_array($data) ? ($data[$key] ?? null) : null);
        }
    }
}

namespace {
    function response(): object
    {
        return new class {
            public function json(array $data, int $status = 200): \Illuminate\Http\JsonResponse { return new \Illuminate\Http\JsonResponse($data, $status); }
        };
    }

    function config(string $key): mixed
    {
        return ['services.ipaymu.va' => getenv('IPAYMU_VA'), 'services.ipaymu.api_key' => getenv('IPAYMU_API_KEY'), 'services.ipaymu.base_url' => getenv('IPAYMU_BASE_URL')][$key] ?? null;
    }
}
