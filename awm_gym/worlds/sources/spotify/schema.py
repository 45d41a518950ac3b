"""SQLite schema of the spotify world (the `db_schema.tables` of gen_db.jsonl).

Each entry is {"name", "ddl", "indexes"}; tables are listed in foreign-key-safe order.
"""

TABLES = [
    {
        "name": "users",
        "ddl": "CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE, display_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, country TEXT, subscription_tier TEXT NOT NULL DEFAULT 'free' CHECK (subscription_tier IN ('free', 'premium', 'family', 'student')), created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": ["CREATE INDEX idx_users_display_name ON users(display_name);"],
    },
    {
        "name": "genres",
        "ddl": "CREATE TABLE genres (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT);",
        "indexes": [],
    },
    {
        "name": "artists",
        "ddl": "CREATE TABLE artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, genre_id INTEGER REFERENCES genres(id), country TEXT, monthly_listeners INTEGER NOT NULL DEFAULT 0, is_verified BOOLEAN NOT NULL DEFAULT 0, bio TEXT);",
        "indexes": [
            "CREATE INDEX idx_artists_name ON artists(name);",
            "CREATE INDEX idx_artists_genre_id ON artists(genre_id);",
        ],
    },
    {
        "name": "albums",
        "ddl": "CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT NOT NULL, artist_id INTEGER NOT NULL REFERENCES artists(id), genre_id INTEGER REFERENCES genres(id), album_type TEXT NOT NULL DEFAULT 'album' CHECK (album_type IN ('album', 'single', 'ep', 'compilation')), release_date TEXT NOT NULL, label TEXT, total_tracks INTEGER NOT NULL DEFAULT 0);",
        "indexes": [
            "CREATE INDEX idx_albums_artist_id ON albums(artist_id);",
            "CREATE INDEX idx_albums_title ON albums(title);",
            "CREATE INDEX idx_albums_release_date ON albums(release_date);",
        ],
    },
    {
        "name": "tracks",
        "ddl": "CREATE TABLE tracks (id INTEGER PRIMARY KEY, title TEXT NOT NULL, album_id INTEGER NOT NULL REFERENCES albums(id), track_number INTEGER NOT NULL, duration_ms INTEGER NOT NULL, explicit BOOLEAN NOT NULL DEFAULT 0, popularity INTEGER NOT NULL DEFAULT 0 CHECK (popularity BETWEEN 0 AND 100), play_count INTEGER NOT NULL DEFAULT 0);",
        "indexes": [
            "CREATE INDEX idx_tracks_album_id ON tracks(album_id);",
            "CREATE INDEX idx_tracks_title ON tracks(title);",
            "CREATE INDEX idx_tracks_popularity ON tracks(popularity);",
        ],
    },
    {
        "name": "track_artists",
        "ddl": "CREATE TABLE track_artists (track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE, artist_id INTEGER NOT NULL REFERENCES artists(id), role TEXT NOT NULL DEFAULT 'primary' CHECK (role IN ('primary', 'featured')), PRIMARY KEY (track_id, artist_id));",
        "indexes": ["CREATE INDEX idx_track_artists_artist_id ON track_artists(artist_id);"],
    },
    {
        "name": "devices",
        "ddl": "CREATE TABLE devices (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, device_type TEXT NOT NULL CHECK (device_type IN ('smartphone', 'computer', 'speaker', 'tv', 'car', 'tablet')), is_active BOOLEAN NOT NULL DEFAULT 0, volume_percent INTEGER NOT NULL DEFAULT 50 CHECK (volume_percent BETWEEN 0 AND 100), last_seen_at DATETIME);",
        "indexes": ["CREATE INDEX idx_devices_user_id ON devices(user_id);"],
    },
    {
        "name": "playlists",
        "ddl": "CREATE TABLE playlists (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL, description TEXT, is_public BOOLEAN NOT NULL DEFAULT 0, is_collaborative BOOLEAN NOT NULL DEFAULT 0, created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [
            "CREATE INDEX idx_playlists_user_id ON playlists(user_id);",
            "CREATE INDEX idx_playlists_name ON playlists(name);",
        ],
    },
    {
        "name": "playlist_tracks",
        "ddl": "CREATE TABLE playlist_tracks (id INTEGER PRIMARY KEY, playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE, track_id INTEGER NOT NULL REFERENCES tracks(id), position INTEGER NOT NULL, added_by INTEGER REFERENCES users(id), added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (playlist_id, track_id));",
        "indexes": ["CREATE INDEX idx_playlist_tracks_playlist_position ON playlist_tracks(playlist_id, position);"],
    },
    {
        "name": "playlist_followers",
        "ddl": "CREATE TABLE playlist_followers (id INTEGER PRIMARY KEY, playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE, user_id INTEGER NOT NULL REFERENCES users(id), followed_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (playlist_id, user_id));",
        "indexes": ["CREATE INDEX idx_playlist_followers_user_id ON playlist_followers(user_id);"],
    },
    {
        "name": "liked_tracks",
        "ddl": "CREATE TABLE liked_tracks (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), track_id INTEGER NOT NULL REFERENCES tracks(id), liked_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, track_id));",
        "indexes": ["CREATE INDEX idx_liked_tracks_user_liked_at ON liked_tracks(user_id, liked_at);"],
    },
    {
        "name": "saved_albums",
        "ddl": "CREATE TABLE saved_albums (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), album_id INTEGER NOT NULL REFERENCES albums(id), saved_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, album_id));",
        "indexes": ["CREATE INDEX idx_saved_albums_user_id ON saved_albums(user_id);"],
    },
    {
        "name": "followed_artists",
        "ddl": "CREATE TABLE followed_artists (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), artist_id INTEGER NOT NULL REFERENCES artists(id), followed_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, artist_id));",
        "indexes": ["CREATE INDEX idx_followed_artists_user_id ON followed_artists(user_id);"],
    },
    {
        "name": "user_follows",
        "ddl": "CREATE TABLE user_follows (id INTEGER PRIMARY KEY, follower_id INTEGER NOT NULL REFERENCES users(id), followee_id INTEGER NOT NULL REFERENCES users(id), followed_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (follower_id, followee_id), CHECK (follower_id <> followee_id));",
        "indexes": ["CREATE INDEX idx_user_follows_followee_id ON user_follows(followee_id);"],
    },
    {
        "name": "listening_history",
        "ddl": "CREATE TABLE listening_history (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), track_id INTEGER NOT NULL REFERENCES tracks(id), device_id INTEGER REFERENCES devices(id), played_at DATETIME NOT NULL, ms_played INTEGER NOT NULL DEFAULT 0, context_type TEXT CHECK (context_type IN ('album', 'playlist', 'artist', 'search', 'radio')), context_id INTEGER);",
        "indexes": [
            "CREATE INDEX idx_listening_history_user_played_at ON listening_history(user_id, played_at);",
            "CREATE INDEX idx_listening_history_track_id ON listening_history(track_id);",
        ],
    },
    {
        "name": "podcasts",
        "ddl": "CREATE TABLE podcasts (id INTEGER PRIMARY KEY, title TEXT NOT NULL, publisher TEXT NOT NULL, category TEXT NOT NULL, description TEXT, language TEXT NOT NULL DEFAULT 'en', total_episodes INTEGER NOT NULL DEFAULT 0, explicit BOOLEAN NOT NULL DEFAULT 0);",
        "indexes": ["CREATE INDEX idx_podcasts_title ON podcasts(title);"],
    },
    {
        "name": "episodes",
        "ddl": "CREATE TABLE episodes (id INTEGER PRIMARY KEY, podcast_id INTEGER NOT NULL REFERENCES podcasts(id) ON DELETE CASCADE, title TEXT NOT NULL, description TEXT, duration_ms INTEGER NOT NULL, release_date TEXT NOT NULL, explicit BOOLEAN NOT NULL DEFAULT 0);",
        "indexes": ["CREATE INDEX idx_episodes_podcast_release ON episodes(podcast_id, release_date);"],
    },
    {
        "name": "followed_podcasts",
        "ddl": "CREATE TABLE followed_podcasts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), podcast_id INTEGER NOT NULL REFERENCES podcasts(id), followed_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (user_id, podcast_id));",
        "indexes": ["CREATE INDEX idx_followed_podcasts_user_id ON followed_podcasts(user_id);"],
    },
    {
        "name": "saved_episodes",
        "ddl": "CREATE TABLE saved_episodes (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), episode_id INTEGER NOT NULL REFERENCES episodes(id), saved_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, resume_position_ms INTEGER NOT NULL DEFAULT 0, completed BOOLEAN NOT NULL DEFAULT 0, UNIQUE (user_id, episode_id));",
        "indexes": ["CREATE INDEX idx_saved_episodes_user_id ON saved_episodes(user_id);"],
    },
    {
        "name": "queue_items",
        "ddl": "CREATE TABLE queue_items (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), track_id INTEGER REFERENCES tracks(id), episode_id INTEGER REFERENCES episodes(id), position INTEGER NOT NULL, added_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CHECK (track_id IS NOT NULL OR episode_id IS NOT NULL));",
        "indexes": ["CREATE INDEX idx_queue_items_user_position ON queue_items(user_id, position);"],
    },
    {
        "name": "playback_state",
        "ddl": "CREATE TABLE playback_state (user_id INTEGER PRIMARY KEY REFERENCES users(id), device_id INTEGER REFERENCES devices(id), track_id INTEGER REFERENCES tracks(id), episode_id INTEGER REFERENCES episodes(id), progress_ms INTEGER NOT NULL DEFAULT 0, is_playing BOOLEAN NOT NULL DEFAULT 0, shuffle BOOLEAN NOT NULL DEFAULT 0, repeat_mode TEXT NOT NULL DEFAULT 'off' CHECK (repeat_mode IN ('off', 'track', 'context')), updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
    {
        "name": "user_settings",
        "ddl": "CREATE TABLE user_settings (user_id INTEGER PRIMARY KEY REFERENCES users(id), audio_quality TEXT NOT NULL DEFAULT 'normal' CHECK (audio_quality IN ('low', 'normal', 'high', 'very_high')), crossfade_seconds INTEGER NOT NULL DEFAULT 0 CHECK (crossfade_seconds BETWEEN 0 AND 12), explicit_content_allowed BOOLEAN NOT NULL DEFAULT 1, autoplay BOOLEAN NOT NULL DEFAULT 1, normalize_volume BOOLEAN NOT NULL DEFAULT 1, private_session BOOLEAN NOT NULL DEFAULT 0, language TEXT NOT NULL DEFAULT 'en', updated_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        "indexes": [],
    },
]
