import os
from datetime import datetime
from typing import List, Optional

from fastapi import FastAPI, Query, Path
from pydantic import BaseModel, Field, ConfigDict
from sqlalchemy import create_engine, Column, Integer, String, Text, Boolean, DateTime, ForeignKey, UniqueConstraint, PrimaryKeyConstraint, func, or_
from sqlalchemy.orm import declarative_base, sessionmaker

DATABASE_PATH = os.getenv("DATABASE_PATH", "sqlite:///spotify.db")

engine = create_engine(DATABASE_PATH, connect_args={"check_same_thread": False})
SessionLocal = sessionmaker(autocommit=False, autoflush=False, bind=engine)
Base = declarative_base()


class User(Base):
    __tablename__ = "users"
    id = Column(Integer, primary_key=True)
    username = Column(String, nullable=False, unique=True)
    display_name = Column(String, nullable=False)
    email = Column(String, nullable=False, unique=True)
    country = Column(String)
    subscription_tier = Column(String, nullable=False, default="free")
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class Genre(Base):
    __tablename__ = "genres"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False, unique=True)
    description = Column(Text)


class Artist(Base):
    __tablename__ = "artists"
    id = Column(Integer, primary_key=True)
    name = Column(String, nullable=False)
    genre_id = Column(Integer, ForeignKey("genres.id"))
    country = Column(String)
    monthly_listeners = Column(Integer, nullable=False, default=0)
    is_verified = Column(Boolean, nullable=False, default=False)
    bio = Column(Text)


class Album(Base):
    __tablename__ = "albums"
    id = Column(Integer, primary_key=True)
    title = Column(String, nullable=False)
    artist_id = Column(Integer, ForeignKey("artists.id"), nullable=False)
    genre_id = Column(Integer, ForeignKey("genres.id"))
    album_type = Column(String, nullable=False, default="album")
    release_date = Column(String, nullable=False)
    label = Column(String)
    total_tracks = Column(Integer, nullable=False, default=0)


class Track(Base):
    __tablename__ = "tracks"
    id = Column(Integer, primary_key=True)
    title = Column(String, nullable=False)
    album_id = Column(Integer, ForeignKey("albums.id"), nullable=False)
    track_number = Column(Integer, nullable=False)
    duration_ms = Column(Integer, nullable=False)
    explicit = Column(Boolean, nullable=False, default=False)
    popularity = Column(Integer, nullable=False, default=0)
    play_count = Column(Integer, nullable=False, default=0)


class TrackArtist(Base):
    __tablename__ = "track_artists"
    __table_args__ = (PrimaryKeyConstraint("track_id", "artist_id"),)
    track_id = Column(Integer, ForeignKey("tracks.id"), nullable=False)
    artist_id = Column(Integer, ForeignKey("artists.id"), nullable=False)
    role = Column(String, nullable=False, default="primary")


class Device(Base):
    __tablename__ = "devices"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    device_type = Column(String, nullable=False)
    is_active = Column(Boolean, nullable=False, default=False)
    volume_percent = Column(Integer, nullable=False, default=50)
    last_seen_at = Column(DateTime)


class Playlist(Base):
    __tablename__ = "playlists"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    name = Column(String, nullable=False)
    description = Column(Text)
    is_public = Column(Boolean, nullable=False, default=False)
    is_collaborative = Column(Boolean, nullable=False, default=False)
    created_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PlaylistTrack(Base):
    __tablename__ = "playlist_tracks"
    __table_args__ = (UniqueConstraint("playlist_id", "track_id"),)
    id = Column(Integer, primary_key=True)
    playlist_id = Column(Integer, ForeignKey("playlists.id"), nullable=False)
    track_id = Column(Integer, ForeignKey("tracks.id"), nullable=False)
    position = Column(Integer, nullable=False)
    added_by = Column(Integer, ForeignKey("users.id"))
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PlaylistFollower(Base):
    __tablename__ = "playlist_followers"
    __table_args__ = (UniqueConstraint("playlist_id", "user_id"),)
    id = Column(Integer, primary_key=True)
    playlist_id = Column(Integer, ForeignKey("playlists.id"), nullable=False)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    followed_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class LikedTrack(Base):
    __tablename__ = "liked_tracks"
    __table_args__ = (UniqueConstraint("user_id", "track_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    track_id = Column(Integer, ForeignKey("tracks.id"), nullable=False)
    liked_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class SavedAlbum(Base):
    __tablename__ = "saved_albums"
    __table_args__ = (UniqueConstraint("user_id", "album_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    album_id = Column(Integer, ForeignKey("albums.id"), nullable=False)
    saved_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class FollowedArtist(Base):
    __tablename__ = "followed_artists"
    __table_args__ = (UniqueConstraint("user_id", "artist_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    artist_id = Column(Integer, ForeignKey("artists.id"), nullable=False)
    followed_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class UserFollow(Base):
    __tablename__ = "user_follows"
    __table_args__ = (UniqueConstraint("follower_id", "followee_id"),)
    id = Column(Integer, primary_key=True)
    follower_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    followee_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    followed_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class ListeningHistory(Base):
    __tablename__ = "listening_history"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    track_id = Column(Integer, ForeignKey("tracks.id"), nullable=False)
    device_id = Column(Integer, ForeignKey("devices.id"))
    played_at = Column(DateTime, nullable=False)
    ms_played = Column(Integer, nullable=False, default=0)
    context_type = Column(String)
    context_id = Column(Integer)


class Podcast(Base):
    __tablename__ = "podcasts"
    id = Column(Integer, primary_key=True)
    title = Column(String, nullable=False)
    publisher = Column(String, nullable=False)
    category = Column(String, nullable=False)
    description = Column(Text)
    language = Column(String, nullable=False, default="en")
    total_episodes = Column(Integer, nullable=False, default=0)
    explicit = Column(Boolean, nullable=False, default=False)


class Episode(Base):
    __tablename__ = "episodes"
    id = Column(Integer, primary_key=True)
    podcast_id = Column(Integer, ForeignKey("podcasts.id"), nullable=False)
    title = Column(String, nullable=False)
    description = Column(Text)
    duration_ms = Column(Integer, nullable=False)
    release_date = Column(String, nullable=False)
    explicit = Column(Boolean, nullable=False, default=False)


class FollowedPodcast(Base):
    __tablename__ = "followed_podcasts"
    __table_args__ = (UniqueConstraint("user_id", "podcast_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    podcast_id = Column(Integer, ForeignKey("podcasts.id"), nullable=False)
    followed_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class SavedEpisode(Base):
    __tablename__ = "saved_episodes"
    __table_args__ = (UniqueConstraint("user_id", "episode_id"),)
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    episode_id = Column(Integer, ForeignKey("episodes.id"), nullable=False)
    saved_at = Column(DateTime, nullable=False, default=datetime.utcnow)
    resume_position_ms = Column(Integer, nullable=False, default=0)
    completed = Column(Boolean, nullable=False, default=False)


class QueueItem(Base):
    __tablename__ = "queue_items"
    id = Column(Integer, primary_key=True)
    user_id = Column(Integer, ForeignKey("users.id"), nullable=False)
    track_id = Column(Integer, ForeignKey("tracks.id"))
    episode_id = Column(Integer, ForeignKey("episodes.id"))
    position = Column(Integer, nullable=False)
    added_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class PlaybackState(Base):
    __tablename__ = "playback_state"
    user_id = Column(Integer, ForeignKey("users.id"), primary_key=True)
    device_id = Column(Integer, ForeignKey("devices.id"))
    track_id = Column(Integer, ForeignKey("tracks.id"))
    episode_id = Column(Integer, ForeignKey("episodes.id"))
    progress_ms = Column(Integer, nullable=False, default=0)
    is_playing = Column(Boolean, nullable=False, default=False)
    shuffle = Column(Boolean, nullable=False, default=False)
    repeat_mode = Column(String, nullable=False, default="off")
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


class UserSettings(Base):
    __tablename__ = "user_settings"
    user_id = Column(Integer, ForeignKey("users.id"), primary_key=True)
    audio_quality = Column(String, nullable=False, default="normal")
    crossfade_seconds = Column(Integer, nullable=False, default=0)
    explicit_content_allowed = Column(Boolean, nullable=False, default=True)
    autoplay = Column(Boolean, nullable=False, default=True)
    normalize_volume = Column(Boolean, nullable=False, default=True)
    private_session = Column(Boolean, nullable=False, default=False)
    language = Column(String, nullable=False, default="en")
    updated_at = Column(DateTime, nullable=False, default=datetime.utcnow)


Base.metadata.create_all(bind=engine)


class UserResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="User ID", example=1)
    username: str = Field(..., description="Unique username", example="alex_rivera")
    display_name: str = Field(..., description="Name shown on the profile", example="Alex Rivera")
    email: str = Field(..., description="Email address", example="alex.rivera@example.com")
    country: Optional[str] = Field(None, description="Two-letter country code", example="US")
    subscription_tier: str = Field(..., description="Subscription tier: free, premium, family or student", example="premium")
    created_at: datetime = Field(..., description="Account creation time", example="2019-04-12T09:30:00")


class UserFollowResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Follow record ID", example=6)
    follower_id: int = Field(..., description="ID of the following user", example=1)
    followee_id: int = Field(..., description="ID of the followed user", example=4)
    followed_at: datetime = Field(..., description="When the follow happened", example="2024-03-01T12:00:00")


class GenreResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Genre ID", example=1)
    name: str = Field(..., description="Genre name", example="Indie Pop")
    description: Optional[str] = Field(None, description="Short genre description", example="Melodic guitar and synth pop from independent artists.")


class ArtistResponse(BaseModel):
    id: int = Field(..., description="Artist ID", example=1)
    name: str = Field(..., description="Artist name", example="Luna Vale")
    genre_id: Optional[int] = Field(None, description="Main genre ID", example=1)
    genre_name: Optional[str] = Field(None, description="Main genre name", example="Indie Pop")
    country: Optional[str] = Field(None, description="Country code", example="NZ")
    monthly_listeners: int = Field(..., description="Monthly listeners", example=4820000)
    is_verified: bool = Field(..., description="Whether the artist is verified", example=True)
    bio: Optional[str] = Field(None, description="Artist biography", example="Dream-pop songwriter from Wellington.")


class AlbumResponse(BaseModel):
    id: int = Field(..., description="Album ID", example=1)
    title: str = Field(..., description="Album title", example="Glass Horizons")
    artist_id: int = Field(..., description="Primary artist ID", example=1)
    artist_name: str = Field(..., description="Primary artist name", example="Luna Vale")
    genre_id: Optional[int] = Field(None, description="Genre ID", example=1)
    album_type: str = Field(..., description="album, single, ep or compilation", example="album")
    release_date: str = Field(..., description="Release date (YYYY-MM-DD)", example="2021-06-18")
    label: Optional[str] = Field(None, description="Record label", example="Southern Echo Records")
    total_tracks: int = Field(..., description="Number of tracks", example=5)


class TrackResponse(BaseModel):
    id: int = Field(..., description="Track ID", example=13)
    title: str = Field(..., description="Track title", example="Midnight Drive")
    album_id: int = Field(..., description="Album ID", example=4)
    album_title: str = Field(..., description="Album title", example="Neon Boulevard")
    artists: List[str] = Field(..., description="Credited artist names, primary artist first", example=["The Glass Arcade"])
    track_number: int = Field(..., description="Position on the album", example=3)
    duration_ms: int = Field(..., description="Duration in milliseconds", example=258000)
    explicit: bool = Field(..., description="Whether the track has explicit lyrics", example=False)
    popularity: int = Field(..., description="Popularity score from 0 to 100", example=77)
    play_count: int = Field(..., description="Total plays across the platform", example=16750000)


class PlaylistResponse(BaseModel):
    id: int = Field(..., description="Playlist ID", example=1)
    user_id: int = Field(..., description="Owner user ID", example=1)
    owner_name: str = Field(..., description="Owner display name", example="Alex Rivera")
    name: str = Field(..., description="Playlist name", example="Morning Commute")
    description: Optional[str] = Field(None, description="Playlist description", example="Bright tracks for the ride to work.")
    is_public: bool = Field(..., description="Whether the playlist is public", example=True)
    is_collaborative: bool = Field(..., description="Whether others can add tracks", example=False)
    track_count: int = Field(..., description="Number of tracks", example=5)
    total_duration_ms: int = Field(..., description="Sum of track durations in milliseconds", example=1176000)
    follower_count: int = Field(..., description="Number of followers", example=2)
    created_at: datetime = Field(..., description="Creation time", example="2023-01-09T07:45:00")
    updated_at: datetime = Field(..., description="Last modification time", example="2024-03-01T10:00:00")


class PlaylistTrackResponse(BaseModel):
    id: int = Field(..., description="Playlist entry ID", example=1)
    playlist_id: int = Field(..., description="Playlist ID", example=1)
    position: int = Field(..., description="1-based position in the playlist", example=1)
    added_by: Optional[int] = Field(None, description="User who added the track", example=1)
    added_at: datetime = Field(..., description="When the track was added", example="2023-01-09T08:00:00")
    track: TrackResponse = Field(..., description="The track", example={"id": 6, "title": "Moonlit Letters"})


class LikedTrackResponse(BaseModel):
    liked_at: datetime = Field(..., description="When the track was liked", example="2023-09-30T08:41:00")
    track: TrackResponse = Field(..., description="The liked track", example={"id": 6, "title": "Moonlit Letters"})


class SavedAlbumResponse(BaseModel):
    saved_at: datetime = Field(..., description="When the album was saved", example="2021-06-19T10:00:00")
    album: AlbumResponse = Field(..., description="The saved album", example={"id": 1, "title": "Glass Horizons"})


class FollowedArtistResponse(BaseModel):
    followed_at: datetime = Field(..., description="When the artist was followed", example="2019-05-01T12:00:00")
    artist: ArtistResponse = Field(..., description="The followed artist", example={"id": 1, "name": "Luna Vale"})


class HistoryEntryResponse(BaseModel):
    id: int = Field(..., description="History entry ID", example=13)
    played_at: datetime = Field(..., description="When the play started", example="2024-03-02T18:45:00")
    ms_played: int = Field(..., description="Milliseconds listened", example=258000)
    context_type: Optional[str] = Field(None, description="album, playlist, artist, search or radio", example="playlist")
    context_id: Optional[int] = Field(None, description="ID of the album/playlist/artist context", example=1)
    device_id: Optional[int] = Field(None, description="Device used", example=1)
    track: TrackResponse = Field(..., description="The track played", example={"id": 13, "title": "Midnight Drive"})


class TopTrackResponse(BaseModel):
    user_play_count: int = Field(..., description="Times the current user played this track", example=4)
    total_ms_played: int = Field(..., description="Total milliseconds the user listened", example=847000)
    track: TrackResponse = Field(..., description="The track", example={"id": 13, "title": "Midnight Drive"})


class TopArtistResponse(BaseModel):
    user_play_count: int = Field(..., description="Plays of this artist's tracks by the current user", example=5)
    artist: ArtistResponse = Field(..., description="The artist", example={"id": 1, "name": "Luna Vale"})


class PodcastResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Podcast ID", example=1)
    title: str = Field(..., description="Podcast title", example="Signal & Noise")
    publisher: str = Field(..., description="Publisher", example="Wavelength Media")
    category: str = Field(..., description="Category", example="Technology")
    description: Optional[str] = Field(None, description="Show description", example="Weekly conversations about technology.")
    language: str = Field(..., description="Language code", example="en")
    total_episodes: int = Field(..., description="Number of episodes", example=3)
    explicit: bool = Field(..., description="Whether the show is explicit", example=False)


class EpisodeResponse(BaseModel):
    id: int = Field(..., description="Episode ID", example=2)
    podcast_id: int = Field(..., description="Podcast ID", example=1)
    podcast_title: str = Field(..., description="Podcast title", example="Signal & Noise")
    title: str = Field(..., description="Episode title", example="The Ethics of Algorithms")
    description: Optional[str] = Field(None, description="Episode description", example="When automated decisions go wrong, who is responsible?")
    duration_ms: int = Field(..., description="Duration in milliseconds", example=3120000)
    release_date: str = Field(..., description="Release date (YYYY-MM-DD)", example="2024-02-05")
    explicit: bool = Field(..., description="Whether the episode is explicit", example=False)


class FollowedPodcastResponse(BaseModel):
    followed_at: datetime = Field(..., description="When the podcast was followed", example="2023-11-20T19:00:00")
    podcast: PodcastResponse = Field(..., description="The podcast", example={"id": 1, "title": "Signal & Noise"})


class SavedEpisodeResponse(BaseModel):
    id: int = Field(..., description="Saved episode record ID", example=1)
    saved_at: datetime = Field(..., description="When the episode was saved", example="2024-02-06T08:00:00")
    resume_position_ms: int = Field(..., description="Playback position to resume from", example=1260000)
    completed: bool = Field(..., description="Whether the episode was finished", example=False)
    episode: EpisodeResponse = Field(..., description="The episode", example={"id": 2, "title": "The Ethics of Algorithms"})


class QueueItemResponse(BaseModel):
    id: int = Field(..., description="Queue item ID", example=1)
    position: int = Field(..., description="1-based position in the queue", example=1)
    item_type: str = Field(..., description="track or episode", example="track")
    added_at: datetime = Field(..., description="When the item was queued", example="2024-03-02T18:00:00")
    track: Optional[TrackResponse] = Field(None, description="Queued track, if a track", example={"id": 41, "title": "Afterglow"})
    episode: Optional[EpisodeResponse] = Field(None, description="Queued episode, if an episode", example=None)


class DeviceResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int = Field(..., description="Device ID", example=2)
    name: str = Field(..., description="Device name", example="Living Room Speaker")
    device_type: str = Field(..., description="smartphone, computer, speaker, tv, car or tablet", example="speaker")
    is_active: bool = Field(..., description="Whether playback is on this device", example=False)
    volume_percent: int = Field(..., description="Volume from 0 to 100", example=40)
    last_seen_at: Optional[datetime] = Field(None, description="Last time the device was online", example="2024-03-01T20:00:00")


class PlaybackStateResponse(BaseModel):
    device: Optional[DeviceResponse] = Field(None, description="Device playing", example={"id": 1, "name": "Alex's iPhone"})
    track: Optional[TrackResponse] = Field(None, description="Current track", example={"id": 13, "title": "Midnight Drive"})
    episode: Optional[EpisodeResponse] = Field(None, description="Current episode", example=None)
    progress_ms: int = Field(..., description="Progress into the current item", example=73000)
    is_playing: bool = Field(..., description="Whether playback is running", example=True)
    shuffle: bool = Field(..., description="Shuffle on or off", example=False)
    repeat_mode: str = Field(..., description="off, track or context", example="off")
    updated_at: datetime = Field(..., description="Last state change", example="2024-03-02T18:45:00")


class SettingsResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    user_id: int = Field(..., description="User ID", example=1)
    audio_quality: str = Field(..., description="low, normal, high or very_high", example="high")
    crossfade_seconds: int = Field(..., description="Crossfade between songs in seconds (0-12)", example=0)
    explicit_content_allowed: bool = Field(..., description="Whether explicit content may play", example=True)
    autoplay: bool = Field(..., description="Autoplay similar songs when music ends", example=True)
    normalize_volume: bool = Field(..., description="Normalize loudness across tracks", example=True)
    private_session: bool = Field(..., description="Hide listening activity from followers", example=False)
    language: str = Field(..., description="App language code", example="en")
    updated_at: datetime = Field(..., description="Last settings change", example="2023-12-01T12:00:00")


class ActionResponse(BaseModel):
    success: bool = Field(..., description="Whether the action succeeded", example=True)
    message: str = Field(..., description="Human-readable result", example="Playlist 4 deleted")


class PlaylistCreateRequest(BaseModel):
    name: str = Field(..., description="Playlist name", example="Best of Luna Vale")
    description: Optional[str] = Field(None, description="Playlist description", example="My favourite Luna Vale songs")
    is_public: bool = Field(False, description="Make the playlist public", example=False)
    is_collaborative: bool = Field(False, description="Allow others to add tracks", example=False)


class PlaylistUpdateRequest(BaseModel):
    name: Optional[str] = Field(None, description="New playlist name", example="Road Trip Classics")
    description: Optional[str] = Field(None, description="New description", example="Songs for the open road")
    is_public: Optional[bool] = Field(None, description="New public flag", example=True)
    is_collaborative: Optional[bool] = Field(None, description="New collaborative flag", example=False)


class PlaylistTrackAddRequest(BaseModel):
    track_id: int = Field(..., description="Track to add", example=1)
    position: Optional[int] = Field(None, description="1-based position to insert at; appended when omitted", example=None)


class PlaylistTrackMoveRequest(BaseModel):
    new_position: int = Field(..., description="New 1-based position of the track", example=1)


class TrackIdRequest(BaseModel):
    track_id: int = Field(..., description="Track ID", example=21)


class AlbumIdRequest(BaseModel):
    album_id: int = Field(..., description="Album ID", example=5)


class ArtistIdRequest(BaseModel):
    artist_id: int = Field(..., description="Artist ID", example=4)


class UserIdRequest(BaseModel):
    user_id: int = Field(..., description="User ID to follow", example=4)


class PodcastIdRequest(BaseModel):
    podcast_id: int = Field(..., description="Podcast ID", example=2)


class EpisodeIdRequest(BaseModel):
    episode_id: int = Field(..., description="Episode ID", example=5)


class EpisodeProgressRequest(BaseModel):
    resume_position_ms: Optional[int] = Field(None, description="New resume position in milliseconds", example=600000)
    completed: Optional[bool] = Field(None, description="Mark as finished or unfinished", example=True)


class QueueAddRequest(BaseModel):
    track_id: Optional[int] = Field(None, description="Track to queue", example=13)
    episode_id: Optional[int] = Field(None, description="Episode to queue (used when track_id is omitted)", example=None)


class TransferPlaybackRequest(BaseModel):
    device_id: int = Field(..., description="Device to move playback to", example=2)
    play: bool = Field(True, description="Start playing on the new device", example=True)


class PlaybackModeRequest(BaseModel):
    shuffle: Optional[bool] = Field(None, description="Turn shuffle on or off", example=True)
    repeat_mode: Optional[str] = Field(None, description="off, track or context", example="context", pattern="^(off|track|context)$")


class VolumeRequest(BaseModel):
    volume_percent: int = Field(..., description="Volume from 0 to 100", example=60, ge=0, le=100)
    device_id: Optional[int] = Field(None, description="Device to change; the active device when omitted", example=None)


class SettingsUpdateRequest(BaseModel):
    audio_quality: Optional[str] = Field(None, description="low, normal, high or very_high", example="very_high", pattern="^(low|normal|high|very_high)$")
    crossfade_seconds: Optional[int] = Field(None, description="Crossfade in seconds (0-12)", example=6, ge=0, le=12)
    explicit_content_allowed: Optional[bool] = Field(None, description="Allow explicit content", example=True)
    autoplay: Optional[bool] = Field(None, description="Autoplay similar songs", example=True)
    normalize_volume: Optional[bool] = Field(None, description="Normalize volume", example=True)
    private_session: Optional[bool] = Field(None, description="Private session", example=False)
    language: Optional[str] = Field(None, description="App language code", example="en")


app = FastAPI(
    title="Spotify API",
    description="Music streaming service: catalog search, playlists, library, listening history, podcasts, playback queue and settings for the logged-in user.",
    version="1.0.0",
)


def build_track(session, track):
    album = session.query(Album).filter(Album.id == track.album_id).first()
    credits = session.query(Artist.name, TrackArtist.role).join(TrackArtist, TrackArtist.artist_id == Artist.id).filter(TrackArtist.track_id == track.id).order_by(TrackArtist.role.desc(), Artist.id).all()
    return TrackResponse(
        id=track.id,
        title=track.title,
        album_id=track.album_id,
        album_title=album.title,
        artists=[credit[0] for credit in credits],
        track_number=track.track_number,
        duration_ms=track.duration_ms,
        explicit=track.explicit,
        popularity=track.popularity,
        play_count=track.play_count,
    )


def build_album(session, album):
    artist = session.query(Artist).filter(Artist.id == album.artist_id).first()
    return AlbumResponse(
        id=album.id,
        title=album.title,
        artist_id=album.artist_id,
        artist_name=artist.name,
        genre_id=album.genre_id,
        album_type=album.album_type,
        release_date=album.release_date,
        label=album.label,
        total_tracks=album.total_tracks,
    )


def build_artist(session, artist):
    genre = session.query(Genre).filter(Genre.id == artist.genre_id).first()
    return ArtistResponse(
        id=artist.id,
        name=artist.name,
        genre_id=artist.genre_id,
        genre_name=genre.name if genre else None,
        country=artist.country,
        monthly_listeners=artist.monthly_listeners,
        is_verified=artist.is_verified,
        bio=artist.bio,
    )


def build_episode(session, episode):
    podcast = session.query(Podcast).filter(Podcast.id == episode.podcast_id).first()
    return EpisodeResponse(
        id=episode.id,
        podcast_id=episode.podcast_id,
        podcast_title=podcast.title,
        title=episode.title,
        description=episode.description,
        duration_ms=episode.duration_ms,
        release_date=episode.release_date,
        explicit=episode.explicit,
    )


def build_playlist(session, playlist):
    owner = session.query(User).filter(User.id == playlist.user_id).first()
    track_count = session.query(func.count(PlaylistTrack.id)).filter(PlaylistTrack.playlist_id == playlist.id).scalar()
    total_duration = session.query(func.coalesce(func.sum(Track.duration_ms), 0)).join(PlaylistTrack, PlaylistTrack.track_id == Track.id).filter(PlaylistTrack.playlist_id == playlist.id).scalar()
    follower_count = session.query(func.count(PlaylistFollower.id)).filter(PlaylistFollower.playlist_id == playlist.id).scalar()
    return PlaylistResponse(
        id=playlist.id,
        user_id=playlist.user_id,
        owner_name=owner.display_name,
        name=playlist.name,
        description=playlist.description,
        is_public=playlist.is_public,
        is_collaborative=playlist.is_collaborative,
        track_count=track_count,
        total_duration_ms=total_duration,
        follower_count=follower_count,
        created_at=playlist.created_at,
        updated_at=playlist.updated_at,
    )


def build_playlist_track(session, entry):
    track = session.query(Track).filter(Track.id == entry.track_id).first()
    return PlaylistTrackResponse(
        id=entry.id,
        playlist_id=entry.playlist_id,
        position=entry.position,
        added_by=entry.added_by,
        added_at=entry.added_at,
        track=build_track(session, track),
    )


def build_queue_item(session, item):
    track = session.query(Track).filter(Track.id == item.track_id).first() if item.track_id else None
    episode = session.query(Episode).filter(Episode.id == item.episode_id).first() if item.episode_id else None
    return QueueItemResponse(
        id=item.id,
        position=item.position,
        item_type="track" if track else "episode",
        added_at=item.added_at,
        track=build_track(session, track) if track else None,
        episode=build_episode(session, episode) if episode else None,
    )


def build_playback_state(session, state):
    device = session.query(Device).filter(Device.id == state.device_id).first() if state.device_id else None
    track = session.query(Track).filter(Track.id == state.track_id).first() if state.track_id else None
    episode = session.query(Episode).filter(Episode.id == state.episode_id).first() if state.episode_id else None
    return PlaybackStateResponse(
        device=DeviceResponse.model_validate(device) if device else None,
        track=build_track(session, track) if track else None,
        episode=build_episode(session, episode) if episode else None,
        progress_ms=state.progress_ms,
        is_playing=state.is_playing,
        shuffle=state.shuffle,
        repeat_mode=state.repeat_mode,
        updated_at=state.updated_at,
    )


@app.get("/api/me", response_model=UserResponse, summary="Get current user profile", description="Return the profile of the logged-in user.", tags=["users"], operation_id="get_current_user")
async def get_current_user():
    session = SessionLocal()
    user = session.query(User).filter(User.id == 1).first()
    result = UserResponse.model_validate(user)
    session.close()
    return result


@app.get("/api/users/{user_id}", response_model=UserResponse, summary="Get a user profile", description="Return the public profile of any user by ID.", tags=["users"], operation_id="get_user_profile")
async def get_user_profile(user_id: int = Path(..., description="User ID")):
    session = SessionLocal()
    user = session.query(User).filter(User.id == user_id).first()
    result = UserResponse.model_validate(user)
    session.close()
    return result


@app.get("/api/me/following/users", response_model=List[UserResponse], summary="List users I follow", description="List the users the current user follows.", tags=["users"], operation_id="list_followed_users")
async def list_followed_users():
    session = SessionLocal()
    users = session.query(User).join(UserFollow, UserFollow.followee_id == User.id).filter(UserFollow.follower_id == 1).order_by(User.id).all()
    result = [UserResponse.model_validate(user) for user in users]
    session.close()
    return result


@app.post("/api/me/following/users", response_model=UserFollowResponse, summary="Follow a user", description="Follow another user by ID.", tags=["users"], operation_id="follow_user")
async def follow_user(request: UserIdRequest):
    session = SessionLocal()
    follow = UserFollow(follower_id=1, followee_id=request.user_id, followed_at=datetime.utcnow())
    session.add(follow)
    session.commit()
    session.refresh(follow)
    result = UserFollowResponse.model_validate(follow)
    session.close()
    return result


@app.get("/api/genres", response_model=List[GenreResponse], summary="List genres", description="List all music genres in the catalog.", tags=["browse"], operation_id="list_genres")
async def list_genres():
    session = SessionLocal()
    genres = session.query(Genre).order_by(Genre.name).all()
    result = [GenreResponse.model_validate(genre) for genre in genres]
    session.close()
    return result


@app.get("/api/browse/new-releases", response_model=List[AlbumResponse], summary="List new releases", description="List albums, EPs and singles ordered from newest to oldest release date.", tags=["browse"], operation_id="list_new_releases")
async def list_new_releases(album_type: Optional[str] = Query(None, description="Filter by album, single, ep or compilation"), limit: int = Query(10, description="Maximum number of albums", ge=1, le=50)):
    session = SessionLocal()
    query = session.query(Album)
    if album_type:
        query = query.filter(Album.album_type == album_type)
    albums = query.order_by(Album.release_date.desc(), Album.id).limit(limit).all()
    result = [build_album(session, album) for album in albums]
    session.close()
    return result


@app.get("/api/recommendations", response_model=List[TrackResponse], summary="Get track recommendations", description="Recommend popular tracks in a seed genre or in a seed artist's genre that the user has not liked yet.", tags=["browse"], operation_id="get_recommendations")
async def get_recommendations(seed_artist_id: Optional[int] = Query(None, description="Artist whose genre seeds the recommendations"), seed_genre_id: Optional[int] = Query(None, description="Genre ID used when no seed artist is given"), limit: int = Query(10, description="Maximum number of tracks", ge=1, le=50)):
    session = SessionLocal()
    genre_id = seed_genre_id
    if seed_artist_id is not None:
        artist = session.query(Artist).filter(Artist.id == seed_artist_id).first()
        genre_id = artist.genre_id
    liked_ids = [row[0] for row in session.query(LikedTrack.track_id).filter(LikedTrack.user_id == 1).all()]
    query = session.query(Track).join(Album, Album.id == Track.album_id)
    if genre_id is not None:
        query = query.filter(Album.genre_id == genre_id)
    if liked_ids:
        query = query.filter(Track.id.notin_(liked_ids))
    tracks = query.order_by(Track.popularity.desc(), Track.id).limit(limit).all()
    result = [build_track(session, track) for track in tracks]
    session.close()
    return result


@app.get("/api/tracks/search", response_model=List[TrackResponse], summary="Search tracks", description="Search tracks by title, artist name or album title, with optional filters; sorted by popularity.", tags=["tracks"], operation_id="search_tracks")
async def search_tracks(q: Optional[str] = Query(None, description="Text matched against track title, artist name and album title"), genre_id: Optional[int] = Query(None, description="Only tracks from albums of this genre"), explicit: Optional[bool] = Query(None, description="Filter on the explicit flag"), min_popularity: Optional[int] = Query(None, description="Minimum popularity (0-100)"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100), offset: int = Query(0, description="Number of results to skip", ge=0)):
    session = SessionLocal()
    query = session.query(Track).join(Album, Album.id == Track.album_id)
    if q:
        pattern = f"%{q}%"
        artist_track_ids = [row[0] for row in session.query(TrackArtist.track_id).join(Artist, Artist.id == TrackArtist.artist_id).filter(Artist.name.ilike(pattern)).all()]
        query = query.filter(or_(Track.title.ilike(pattern), Album.title.ilike(pattern), Track.id.in_(artist_track_ids)))
    if genre_id is not None:
        query = query.filter(Album.genre_id == genre_id)
    if explicit is not None:
        query = query.filter(Track.explicit == explicit)
    if min_popularity is not None:
        query = query.filter(Track.popularity >= min_popularity)
    tracks = query.order_by(Track.popularity.desc(), Track.id).offset(offset).limit(limit).all()
    result = [build_track(session, track) for track in tracks]
    session.close()
    return result


@app.get("/api/tracks/{track_id}", response_model=TrackResponse, summary="Get a track", description="Return one track with its album and credited artists.", tags=["tracks"], operation_id="get_track")
async def get_track(track_id: int = Path(..., description="Track ID")):
    session = SessionLocal()
    track = session.query(Track).filter(Track.id == track_id).first()
    result = build_track(session, track)
    session.close()
    return result


@app.get("/api/artists/search", response_model=List[ArtistResponse], summary="Search artists", description="Search artists by name, optionally within a genre; sorted by monthly listeners.", tags=["artists"], operation_id="search_artists")
async def search_artists(q: Optional[str] = Query(None, description="Text matched against the artist name"), genre_id: Optional[int] = Query(None, description="Only artists of this genre"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Artist)
    if q:
        query = query.filter(Artist.name.ilike(f"%{q}%"))
    if genre_id is not None:
        query = query.filter(Artist.genre_id == genre_id)
    artists = query.order_by(Artist.monthly_listeners.desc(), Artist.id).limit(limit).all()
    result = [build_artist(session, artist) for artist in artists]
    session.close()
    return result


@app.get("/api/artists/{artist_id}", response_model=ArtistResponse, summary="Get an artist", description="Return one artist's profile.", tags=["artists"], operation_id="get_artist")
async def get_artist(artist_id: int = Path(..., description="Artist ID")):
    session = SessionLocal()
    artist = session.query(Artist).filter(Artist.id == artist_id).first()
    result = build_artist(session, artist)
    session.close()
    return result


@app.get("/api/artists/{artist_id}/albums", response_model=List[AlbumResponse], summary="List an artist's albums", description="List an artist's releases, newest first.", tags=["artists"], operation_id="list_artist_albums")
async def list_artist_albums(artist_id: int = Path(..., description="Artist ID"), album_type: Optional[str] = Query(None, description="Filter by album, single, ep or compilation")):
    session = SessionLocal()
    query = session.query(Album).filter(Album.artist_id == artist_id)
    if album_type:
        query = query.filter(Album.album_type == album_type)
    albums = query.order_by(Album.release_date.desc(), Album.id).all()
    result = [build_album(session, album) for album in albums]
    session.close()
    return result


@app.get("/api/artists/{artist_id}/top-tracks", response_model=List[TrackResponse], summary="List an artist's top tracks", description="List the most popular tracks credited to an artist.", tags=["artists"], operation_id="list_artist_top_tracks")
async def list_artist_top_tracks(artist_id: int = Path(..., description="Artist ID"), limit: int = Query(5, description="Maximum number of tracks", ge=1, le=50)):
    session = SessionLocal()
    tracks = session.query(Track).join(TrackArtist, TrackArtist.track_id == Track.id).filter(TrackArtist.artist_id == artist_id).order_by(Track.popularity.desc(), Track.id).limit(limit).all()
    result = [build_track(session, track) for track in tracks]
    session.close()
    return result


@app.get("/api/albums/search", response_model=List[AlbumResponse], summary="Search albums", description="Search albums by title or artist name, optionally by release year and type.", tags=["albums"], operation_id="search_albums")
async def search_albums(q: Optional[str] = Query(None, description="Text matched against album title and artist name"), release_year: Optional[int] = Query(None, description="Only albums released in this year"), album_type: Optional[str] = Query(None, description="Filter by album, single, ep or compilation"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Album).join(Artist, Artist.id == Album.artist_id)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Album.title.ilike(pattern), Artist.name.ilike(pattern)))
    if release_year is not None:
        query = query.filter(Album.release_date.like(f"{release_year}-%"))
    if album_type:
        query = query.filter(Album.album_type == album_type)
    albums = query.order_by(Album.release_date.desc(), Album.id).limit(limit).all()
    result = [build_album(session, album) for album in albums]
    session.close()
    return result


@app.get("/api/albums/{album_id}", response_model=AlbumResponse, summary="Get an album", description="Return one album's details.", tags=["albums"], operation_id="get_album")
async def get_album(album_id: int = Path(..., description="Album ID")):
    session = SessionLocal()
    album = session.query(Album).filter(Album.id == album_id).first()
    result = build_album(session, album)
    session.close()
    return result


@app.get("/api/albums/{album_id}/tracks", response_model=List[TrackResponse], summary="List album tracks", description="List an album's tracks in track-number order.", tags=["albums"], operation_id="list_album_tracks")
async def list_album_tracks(album_id: int = Path(..., description="Album ID")):
    session = SessionLocal()
    tracks = session.query(Track).filter(Track.album_id == album_id).order_by(Track.track_number).all()
    result = [build_track(session, track) for track in tracks]
    session.close()
    return result


@app.get("/api/me/playlists", response_model=List[PlaylistResponse], summary="List my playlists", description="List playlists owned by the current user.", tags=["playlists"], operation_id="list_my_playlists")
async def list_my_playlists():
    session = SessionLocal()
    playlists = session.query(Playlist).filter(Playlist.user_id == 1).order_by(Playlist.id).all()
    result = [build_playlist(session, playlist) for playlist in playlists]
    session.close()
    return result


@app.get("/api/me/following/playlists", response_model=List[PlaylistResponse], summary="List playlists I follow", description="List other users' playlists that the current user follows.", tags=["playlists"], operation_id="list_followed_playlists")
async def list_followed_playlists():
    session = SessionLocal()
    playlists = session.query(Playlist).join(PlaylistFollower, PlaylistFollower.playlist_id == Playlist.id).filter(PlaylistFollower.user_id == 1).order_by(Playlist.id).all()
    result = [build_playlist(session, playlist) for playlist in playlists]
    session.close()
    return result


@app.get("/api/playlists/search", response_model=List[PlaylistResponse], summary="Search playlists", description="Search public playlists and the user's own playlists by name or description.", tags=["playlists"], operation_id="search_playlists")
async def search_playlists(q: str = Query(..., description="Text matched against playlist name and description"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    pattern = f"%{q}%"
    playlists = session.query(Playlist).filter(or_(Playlist.is_public == True, Playlist.user_id == 1)).filter(or_(Playlist.name.ilike(pattern), Playlist.description.ilike(pattern))).order_by(Playlist.id).limit(limit).all()
    result = [build_playlist(session, playlist) for playlist in playlists]
    session.close()
    return result


@app.get("/api/playlists/{playlist_id}", response_model=PlaylistResponse, summary="Get a playlist", description="Return one playlist's details.", tags=["playlists"], operation_id="get_playlist")
async def get_playlist(playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id).first()
    result = build_playlist(session, playlist)
    session.close()
    return result


@app.get("/api/playlists/{playlist_id}/tracks", response_model=List[PlaylistTrackResponse], summary="List playlist tracks", description="List a playlist's tracks in playlist order.", tags=["playlists"], operation_id="list_playlist_tracks")
async def list_playlist_tracks(playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    entries = session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist_id).order_by(PlaylistTrack.position, PlaylistTrack.id).all()
    result = [build_playlist_track(session, entry) for entry in entries]
    session.close()
    return result


@app.post("/api/playlists", response_model=PlaylistResponse, summary="Create a playlist", description="Create a new empty playlist owned by the current user.", tags=["playlists"], operation_id="create_playlist")
async def create_playlist(request: PlaylistCreateRequest):
    session = SessionLocal()
    now = datetime.utcnow()
    playlist = Playlist(user_id=1, name=request.name, description=request.description, is_public=request.is_public, is_collaborative=request.is_collaborative, created_at=now, updated_at=now)
    session.add(playlist)
    session.commit()
    session.refresh(playlist)
    result = build_playlist(session, playlist)
    session.close()
    return result


@app.patch("/api/playlists/{playlist_id}", response_model=PlaylistResponse, summary="Update a playlist", description="Rename a playlist or change its description, visibility or collaborative flag.", tags=["playlists"], operation_id="update_playlist")
async def update_playlist(request: PlaylistUpdateRequest, playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id, Playlist.user_id == 1).first()
    if request.name is not None:
        playlist.name = request.name
    if request.description is not None:
        playlist.description = request.description
    if request.is_public is not None:
        playlist.is_public = request.is_public
    if request.is_collaborative is not None:
        playlist.is_collaborative = request.is_collaborative
    playlist.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(playlist)
    result = build_playlist(session, playlist)
    session.close()
    return result


@app.delete("/api/playlists/{playlist_id}", response_model=ActionResponse, summary="Delete a playlist", description="Delete a playlist owned by the current user together with its tracks and followers.", tags=["playlists"], operation_id="delete_playlist")
async def delete_playlist(playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id, Playlist.user_id == 1).first()
    if playlist is None:
        session.close()
        return ActionResponse(success=False, message=f"Playlist {playlist_id} not found among your playlists")
    name = playlist.name
    session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id).delete()
    session.query(PlaylistFollower).filter(PlaylistFollower.playlist_id == playlist.id).delete()
    session.delete(playlist)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Playlist '{name}' deleted")


@app.post("/api/playlists/{playlist_id}/tracks", response_model=PlaylistTrackResponse, summary="Add a track to a playlist", description="Add a track to one of the user's playlists (or a collaborative one), at the end or at a given position.", tags=["playlists"], operation_id="add_track_to_playlist")
async def add_track_to_playlist(request: PlaylistTrackAddRequest, playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id).filter(or_(Playlist.user_id == 1, Playlist.is_collaborative == True)).first()
    track = session.query(Track).filter(Track.id == request.track_id).first()
    existing = session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.track_id == track.id).first()
    if existing is not None:
        result = build_playlist_track(session, existing)
        session.close()
        return result
    count = session.query(func.count(PlaylistTrack.id)).filter(PlaylistTrack.playlist_id == playlist.id).scalar()
    position = count + 1
    if request.position is not None and 1 <= request.position <= count:
        position = request.position
        session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.position >= position).update({PlaylistTrack.position: PlaylistTrack.position + 1}, synchronize_session=False)
    entry = PlaylistTrack(playlist_id=playlist.id, track_id=track.id, position=position, added_by=1, added_at=datetime.utcnow())
    session.add(entry)
    playlist.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(entry)
    result = build_playlist_track(session, entry)
    session.close()
    return result


@app.delete("/api/playlists/{playlist_id}/tracks/{track_id}", response_model=ActionResponse, summary="Remove a track from a playlist", description="Remove a track from a playlist and close the gap in positions.", tags=["playlists"], operation_id="remove_track_from_playlist")
async def remove_track_from_playlist(playlist_id: int = Path(..., description="Playlist ID"), track_id: int = Path(..., description="Track ID to remove")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id).filter(or_(Playlist.user_id == 1, Playlist.is_collaborative == True)).first()
    entry = session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.track_id == track_id).first()
    if entry is None:
        session.close()
        return ActionResponse(success=False, message=f"Track {track_id} is not in playlist {playlist_id}")
    removed_position = entry.position
    session.delete(entry)
    session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.position > removed_position).update({PlaylistTrack.position: PlaylistTrack.position - 1}, synchronize_session=False)
    playlist.updated_at = datetime.utcnow()
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Track {track_id} removed from playlist {playlist_id}")


@app.put("/api/playlists/{playlist_id}/tracks/{track_id}/position", response_model=List[PlaylistTrackResponse], summary="Move a track within a playlist", description="Move a playlist track to a new 1-based position; other tracks shift to make room.", tags=["playlists"], operation_id="reorder_playlist_track")
async def reorder_playlist_track(request: PlaylistTrackMoveRequest, playlist_id: int = Path(..., description="Playlist ID"), track_id: int = Path(..., description="Track ID to move")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id).filter(or_(Playlist.user_id == 1, Playlist.is_collaborative == True)).first()
    entry = session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.track_id == track_id).first()
    count = session.query(func.count(PlaylistTrack.id)).filter(PlaylistTrack.playlist_id == playlist.id).scalar()
    old_position = entry.position
    new_position = max(1, min(request.new_position, count))
    if new_position < old_position:
        session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.position >= new_position, PlaylistTrack.position < old_position).update({PlaylistTrack.position: PlaylistTrack.position + 1}, synchronize_session=False)
    if new_position > old_position:
        session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id, PlaylistTrack.position > old_position, PlaylistTrack.position <= new_position).update({PlaylistTrack.position: PlaylistTrack.position - 1}, synchronize_session=False)
    entry.position = new_position
    playlist.updated_at = datetime.utcnow()
    session.commit()
    entries = session.query(PlaylistTrack).filter(PlaylistTrack.playlist_id == playlist.id).order_by(PlaylistTrack.position, PlaylistTrack.id).all()
    result = [build_playlist_track(session, item) for item in entries]
    session.close()
    return result


@app.post("/api/playlists/{playlist_id}/followers", response_model=PlaylistResponse, summary="Follow a playlist", description="Follow another user's public playlist.", tags=["playlists"], operation_id="follow_playlist")
async def follow_playlist(playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    playlist = session.query(Playlist).filter(Playlist.id == playlist_id, Playlist.is_public == True).first()
    session.add(PlaylistFollower(playlist_id=playlist.id, user_id=1, followed_at=datetime.utcnow()))
    session.commit()
    result = build_playlist(session, playlist)
    session.close()
    return result


@app.delete("/api/playlists/{playlist_id}/followers", response_model=ActionResponse, summary="Unfollow a playlist", description="Stop following a playlist.", tags=["playlists"], operation_id="unfollow_playlist")
async def unfollow_playlist(playlist_id: int = Path(..., description="Playlist ID")):
    session = SessionLocal()
    deleted = session.query(PlaylistFollower).filter(PlaylistFollower.playlist_id == playlist_id, PlaylistFollower.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Unfollowed playlist {playlist_id}" if deleted else f"Playlist {playlist_id} was not followed")


@app.get("/api/me/tracks", response_model=List[LikedTrackResponse], summary="List liked songs", description="List the current user's liked songs, most recently liked first.", tags=["library"], operation_id="list_liked_tracks")
async def list_liked_tracks(limit: int = Query(50, description="Maximum number of tracks", ge=1, le=200), offset: int = Query(0, description="Number of tracks to skip", ge=0)):
    session = SessionLocal()
    likes = session.query(LikedTrack).filter(LikedTrack.user_id == 1).order_by(LikedTrack.liked_at.desc(), LikedTrack.id.desc()).offset(offset).limit(limit).all()
    result = [LikedTrackResponse(liked_at=like.liked_at, track=build_track(session, session.query(Track).filter(Track.id == like.track_id).first())) for like in likes]
    session.close()
    return result


@app.post("/api/me/tracks", response_model=LikedTrackResponse, summary="Like a track", description="Add a track to the current user's liked songs.", tags=["library"], operation_id="like_track")
async def like_track(request: TrackIdRequest):
    session = SessionLocal()
    track = session.query(Track).filter(Track.id == request.track_id).first()
    existing = session.query(LikedTrack).filter(LikedTrack.user_id == 1, LikedTrack.track_id == track.id).first()
    if existing is not None:
        result = LikedTrackResponse(liked_at=existing.liked_at, track=build_track(session, track))
        session.close()
        return result
    like = LikedTrack(user_id=1, track_id=track.id, liked_at=datetime.utcnow())
    session.add(like)
    session.commit()
    session.refresh(like)
    result = LikedTrackResponse(liked_at=like.liked_at, track=build_track(session, track))
    session.close()
    return result


@app.delete("/api/me/tracks/{track_id}", response_model=ActionResponse, summary="Unlike a track", description="Remove a track from the current user's liked songs.", tags=["library"], operation_id="unlike_track")
async def unlike_track(track_id: int = Path(..., description="Track ID")):
    session = SessionLocal()
    deleted = session.query(LikedTrack).filter(LikedTrack.user_id == 1, LikedTrack.track_id == track_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Track {track_id} removed from liked songs" if deleted else f"Track {track_id} was not liked")


@app.get("/api/me/albums", response_model=List[SavedAlbumResponse], summary="List saved albums", description="List albums saved in the current user's library.", tags=["library"], operation_id="list_saved_albums")
async def list_saved_albums():
    session = SessionLocal()
    saved = session.query(SavedAlbum).filter(SavedAlbum.user_id == 1).order_by(SavedAlbum.saved_at.desc(), SavedAlbum.id.desc()).all()
    result = [SavedAlbumResponse(saved_at=item.saved_at, album=build_album(session, session.query(Album).filter(Album.id == item.album_id).first())) for item in saved]
    session.close()
    return result


@app.post("/api/me/albums", response_model=SavedAlbumResponse, summary="Save an album", description="Save an album to the current user's library.", tags=["library"], operation_id="save_album")
async def save_album(request: AlbumIdRequest):
    session = SessionLocal()
    album = session.query(Album).filter(Album.id == request.album_id).first()
    item = SavedAlbum(user_id=1, album_id=album.id, saved_at=datetime.utcnow())
    session.add(item)
    session.commit()
    session.refresh(item)
    result = SavedAlbumResponse(saved_at=item.saved_at, album=build_album(session, album))
    session.close()
    return result


@app.delete("/api/me/albums/{album_id}", response_model=ActionResponse, summary="Remove a saved album", description="Remove an album from the current user's library.", tags=["library"], operation_id="remove_saved_album")
async def remove_saved_album(album_id: int = Path(..., description="Album ID")):
    session = SessionLocal()
    deleted = session.query(SavedAlbum).filter(SavedAlbum.user_id == 1, SavedAlbum.album_id == album_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Album {album_id} removed from library" if deleted else f"Album {album_id} was not saved")


@app.get("/api/me/following/artists", response_model=List[FollowedArtistResponse], summary="List followed artists", description="List artists the current user follows, with their monthly listeners.", tags=["library"], operation_id="list_followed_artists")
async def list_followed_artists():
    session = SessionLocal()
    follows = session.query(FollowedArtist).filter(FollowedArtist.user_id == 1).order_by(FollowedArtist.followed_at.desc(), FollowedArtist.id.desc()).all()
    result = [FollowedArtistResponse(followed_at=follow.followed_at, artist=build_artist(session, session.query(Artist).filter(Artist.id == follow.artist_id).first())) for follow in follows]
    session.close()
    return result


@app.post("/api/me/following/artists", response_model=FollowedArtistResponse, summary="Follow an artist", description="Follow an artist.", tags=["library"], operation_id="follow_artist")
async def follow_artist(request: ArtistIdRequest):
    session = SessionLocal()
    artist = session.query(Artist).filter(Artist.id == request.artist_id).first()
    follow = FollowedArtist(user_id=1, artist_id=artist.id, followed_at=datetime.utcnow())
    session.add(follow)
    session.commit()
    session.refresh(follow)
    result = FollowedArtistResponse(followed_at=follow.followed_at, artist=build_artist(session, artist))
    session.close()
    return result


@app.delete("/api/me/following/artists/{artist_id}", response_model=ActionResponse, summary="Unfollow an artist", description="Stop following an artist.", tags=["library"], operation_id="unfollow_artist")
async def unfollow_artist(artist_id: int = Path(..., description="Artist ID")):
    session = SessionLocal()
    deleted = session.query(FollowedArtist).filter(FollowedArtist.user_id == 1, FollowedArtist.artist_id == artist_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Unfollowed artist {artist_id}" if deleted else f"Artist {artist_id} was not followed")


@app.get("/api/me/history", response_model=List[HistoryEntryResponse], summary="Get listening history", description="List the current user's recently played tracks, newest first.", tags=["history"], operation_id="get_listening_history")
async def get_listening_history(track_id: Optional[int] = Query(None, description="Only plays of this track"), played_after: Optional[str] = Query(None, description="Only plays at or after this time (YYYY-MM-DD or YYYY-MM-DD HH:MM:SS)"), limit: int = Query(20, description="Maximum number of entries", ge=1, le=200)):
    session = SessionLocal()
    query = session.query(ListeningHistory).filter(ListeningHistory.user_id == 1)
    if track_id is not None:
        query = query.filter(ListeningHistory.track_id == track_id)
    if played_after:
        query = query.filter(ListeningHistory.played_at >= datetime.fromisoformat(played_after))
    entries = query.order_by(ListeningHistory.played_at.desc(), ListeningHistory.id.desc()).limit(limit).all()
    result = [HistoryEntryResponse(id=entry.id, played_at=entry.played_at, ms_played=entry.ms_played, context_type=entry.context_type, context_id=entry.context_id, device_id=entry.device_id, track=build_track(session, session.query(Track).filter(Track.id == entry.track_id).first())) for entry in entries]
    session.close()
    return result


@app.get("/api/me/top/tracks", response_model=List[TopTrackResponse], summary="Get my most-played tracks", description="Rank tracks by how many times the current user played them in the listening history.", tags=["history"], operation_id="get_my_top_tracks")
async def get_my_top_tracks(limit: int = Query(10, description="Maximum number of tracks", ge=1, le=50)):
    session = SessionLocal()
    rows = session.query(ListeningHistory.track_id, func.count(ListeningHistory.id), func.sum(ListeningHistory.ms_played)).filter(ListeningHistory.user_id == 1).group_by(ListeningHistory.track_id).order_by(func.count(ListeningHistory.id).desc(), ListeningHistory.track_id).limit(limit).all()
    result = [TopTrackResponse(user_play_count=row[1], total_ms_played=row[2], track=build_track(session, session.query(Track).filter(Track.id == row[0]).first())) for row in rows]
    session.close()
    return result


@app.get("/api/me/top/artists", response_model=List[TopArtistResponse], summary="Get my most-played artists", description="Rank primary artists by how many of the current user's plays were their tracks.", tags=["history"], operation_id="get_my_top_artists")
async def get_my_top_artists(limit: int = Query(10, description="Maximum number of artists", ge=1, le=50)):
    session = SessionLocal()
    rows = session.query(TrackArtist.artist_id, func.count(ListeningHistory.id)).join(ListeningHistory, ListeningHistory.track_id == TrackArtist.track_id).filter(ListeningHistory.user_id == 1, TrackArtist.role == "primary").group_by(TrackArtist.artist_id).order_by(func.count(ListeningHistory.id).desc(), TrackArtist.artist_id).limit(limit).all()
    result = [TopArtistResponse(user_play_count=row[1], artist=build_artist(session, session.query(Artist).filter(Artist.id == row[0]).first())) for row in rows]
    session.close()
    return result


@app.get("/api/podcasts/search", response_model=List[PodcastResponse], summary="Search podcasts", description="Search podcasts by title or publisher, optionally within a category.", tags=["podcasts"], operation_id="search_podcasts")
async def search_podcasts(q: Optional[str] = Query(None, description="Text matched against title and publisher"), category: Optional[str] = Query(None, description="Exact category, e.g. Technology, Science, Food, Music"), limit: int = Query(20, description="Maximum number of results", ge=1, le=100)):
    session = SessionLocal()
    query = session.query(Podcast)
    if q:
        pattern = f"%{q}%"
        query = query.filter(or_(Podcast.title.ilike(pattern), Podcast.publisher.ilike(pattern)))
    if category:
        query = query.filter(Podcast.category == category)
    podcasts = query.order_by(Podcast.title).limit(limit).all()
    result = [PodcastResponse.model_validate(podcast) for podcast in podcasts]
    session.close()
    return result


@app.get("/api/podcasts/{podcast_id}", response_model=PodcastResponse, summary="Get a podcast", description="Return one podcast's details.", tags=["podcasts"], operation_id="get_podcast")
async def get_podcast(podcast_id: int = Path(..., description="Podcast ID")):
    session = SessionLocal()
    podcast = session.query(Podcast).filter(Podcast.id == podcast_id).first()
    result = PodcastResponse.model_validate(podcast)
    session.close()
    return result


@app.get("/api/podcasts/{podcast_id}/episodes", response_model=List[EpisodeResponse], summary="List podcast episodes", description="List a podcast's episodes, newest release first.", tags=["podcasts"], operation_id="list_podcast_episodes")
async def list_podcast_episodes(podcast_id: int = Path(..., description="Podcast ID"), limit: int = Query(20, description="Maximum number of episodes", ge=1, le=100)):
    session = SessionLocal()
    episodes = session.query(Episode).filter(Episode.podcast_id == podcast_id).order_by(Episode.release_date.desc(), Episode.id.desc()).limit(limit).all()
    result = [build_episode(session, episode) for episode in episodes]
    session.close()
    return result


@app.get("/api/episodes/{episode_id}", response_model=EpisodeResponse, summary="Get an episode", description="Return one podcast episode.", tags=["podcasts"], operation_id="get_episode")
async def get_episode(episode_id: int = Path(..., description="Episode ID")):
    session = SessionLocal()
    episode = session.query(Episode).filter(Episode.id == episode_id).first()
    result = build_episode(session, episode)
    session.close()
    return result


@app.get("/api/me/podcasts", response_model=List[FollowedPodcastResponse], summary="List followed podcasts", description="List podcasts the current user follows.", tags=["podcasts"], operation_id="list_followed_podcasts")
async def list_followed_podcasts():
    session = SessionLocal()
    follows = session.query(FollowedPodcast).filter(FollowedPodcast.user_id == 1).order_by(FollowedPodcast.followed_at.desc(), FollowedPodcast.id.desc()).all()
    result = [FollowedPodcastResponse(followed_at=follow.followed_at, podcast=PodcastResponse.model_validate(session.query(Podcast).filter(Podcast.id == follow.podcast_id).first())) for follow in follows]
    session.close()
    return result


@app.post("/api/me/podcasts", response_model=FollowedPodcastResponse, summary="Follow a podcast", description="Follow a podcast.", tags=["podcasts"], operation_id="follow_podcast")
async def follow_podcast(request: PodcastIdRequest):
    session = SessionLocal()
    podcast = session.query(Podcast).filter(Podcast.id == request.podcast_id).first()
    existing = session.query(FollowedPodcast).filter(FollowedPodcast.user_id == 1, FollowedPodcast.podcast_id == podcast.id).first()
    if existing is not None:
        result = FollowedPodcastResponse(followed_at=existing.followed_at, podcast=PodcastResponse.model_validate(podcast))
        session.close()
        return result
    follow = FollowedPodcast(user_id=1, podcast_id=podcast.id, followed_at=datetime.utcnow())
    session.add(follow)
    session.commit()
    session.refresh(follow)
    result = FollowedPodcastResponse(followed_at=follow.followed_at, podcast=PodcastResponse.model_validate(podcast))
    session.close()
    return result


@app.delete("/api/me/podcasts/{podcast_id}", response_model=ActionResponse, summary="Unfollow a podcast", description="Stop following a podcast.", tags=["podcasts"], operation_id="unfollow_podcast")
async def unfollow_podcast(podcast_id: int = Path(..., description="Podcast ID")):
    session = SessionLocal()
    deleted = session.query(FollowedPodcast).filter(FollowedPodcast.user_id == 1, FollowedPodcast.podcast_id == podcast_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Unfollowed podcast {podcast_id}" if deleted else f"Podcast {podcast_id} was not followed")


@app.get("/api/me/episodes", response_model=List[SavedEpisodeResponse], summary="List saved episodes", description="List podcast episodes saved by the current user with resume positions.", tags=["podcasts"], operation_id="list_saved_episodes")
async def list_saved_episodes():
    session = SessionLocal()
    saved = session.query(SavedEpisode).filter(SavedEpisode.user_id == 1).order_by(SavedEpisode.saved_at.desc(), SavedEpisode.id.desc()).all()
    result = [SavedEpisodeResponse(id=item.id, saved_at=item.saved_at, resume_position_ms=item.resume_position_ms, completed=item.completed, episode=build_episode(session, session.query(Episode).filter(Episode.id == item.episode_id).first())) for item in saved]
    session.close()
    return result


@app.post("/api/me/episodes", response_model=SavedEpisodeResponse, summary="Save an episode", description="Save a podcast episode to the current user's library.", tags=["podcasts"], operation_id="save_episode")
async def save_episode(request: EpisodeIdRequest):
    session = SessionLocal()
    episode = session.query(Episode).filter(Episode.id == request.episode_id).first()
    existing = session.query(SavedEpisode).filter(SavedEpisode.user_id == 1, SavedEpisode.episode_id == episode.id).first()
    if existing is not None:
        result = SavedEpisodeResponse(id=existing.id, saved_at=existing.saved_at, resume_position_ms=existing.resume_position_ms, completed=existing.completed, episode=build_episode(session, episode))
        session.close()
        return result
    item = SavedEpisode(user_id=1, episode_id=episode.id, saved_at=datetime.utcnow(), resume_position_ms=0, completed=False)
    session.add(item)
    session.commit()
    session.refresh(item)
    result = SavedEpisodeResponse(id=item.id, saved_at=item.saved_at, resume_position_ms=item.resume_position_ms, completed=item.completed, episode=build_episode(session, episode))
    session.close()
    return result


@app.delete("/api/me/episodes/{episode_id}", response_model=ActionResponse, summary="Remove a saved episode", description="Remove an episode from the current user's saved episodes.", tags=["podcasts"], operation_id="remove_saved_episode")
async def remove_saved_episode(episode_id: int = Path(..., description="Episode ID")):
    session = SessionLocal()
    deleted = session.query(SavedEpisode).filter(SavedEpisode.user_id == 1, SavedEpisode.episode_id == episode_id).delete()
    session.commit()
    session.close()
    return ActionResponse(success=deleted > 0, message=f"Episode {episode_id} removed from saved episodes" if deleted else f"Episode {episode_id} was not saved")


@app.patch("/api/me/episodes/{episode_id}", response_model=SavedEpisodeResponse, summary="Update episode progress", description="Set the resume position or completed flag of a saved episode.", tags=["podcasts"], operation_id="update_episode_progress")
async def update_episode_progress(request: EpisodeProgressRequest, episode_id: int = Path(..., description="Episode ID")):
    session = SessionLocal()
    item = session.query(SavedEpisode).filter(SavedEpisode.user_id == 1, SavedEpisode.episode_id == episode_id).first()
    if request.resume_position_ms is not None:
        item.resume_position_ms = request.resume_position_ms
    if request.completed is not None:
        item.completed = request.completed
    session.commit()
    session.refresh(item)
    result = SavedEpisodeResponse(id=item.id, saved_at=item.saved_at, resume_position_ms=item.resume_position_ms, completed=item.completed, episode=build_episode(session, session.query(Episode).filter(Episode.id == item.episode_id).first()))
    session.close()
    return result


@app.get("/api/me/player", response_model=PlaybackStateResponse, summary="Get playback state", description="Return what is playing, on which device, and the shuffle/repeat modes.", tags=["player"], operation_id="get_playback_state")
async def get_playback_state():
    session = SessionLocal()
    state = session.query(PlaybackState).filter(PlaybackState.user_id == 1).first()
    result = build_playback_state(session, state)
    session.close()
    return result


@app.get("/api/me/player/devices", response_model=List[DeviceResponse], summary="List my devices", description="List the current user's playback devices.", tags=["player"], operation_id="list_devices")
async def list_devices():
    session = SessionLocal()
    devices = session.query(Device).filter(Device.user_id == 1).order_by(Device.id).all()
    result = [DeviceResponse.model_validate(device) for device in devices]
    session.close()
    return result


@app.put("/api/me/player/device", response_model=PlaybackStateResponse, summary="Transfer playback to a device", description="Move playback to another of the user's devices and make it the active device.", tags=["player"], operation_id="transfer_playback")
async def transfer_playback(request: TransferPlaybackRequest):
    session = SessionLocal()
    device = session.query(Device).filter(Device.id == request.device_id, Device.user_id == 1).first()
    session.query(Device).filter(Device.user_id == 1).update({Device.is_active: False}, synchronize_session=False)
    device.is_active = True
    device.last_seen_at = datetime.utcnow()
    state = session.query(PlaybackState).filter(PlaybackState.user_id == 1).first()
    state.device_id = device.id
    state.is_playing = request.play
    state.updated_at = datetime.utcnow()
    session.commit()
    result = build_playback_state(session, state)
    session.close()
    return result


@app.put("/api/me/player/mode", response_model=PlaybackStateResponse, summary="Set shuffle and repeat", description="Turn shuffle on or off and set the repeat mode.", tags=["player"], operation_id="set_playback_mode")
async def set_playback_mode(request: PlaybackModeRequest):
    session = SessionLocal()
    state = session.query(PlaybackState).filter(PlaybackState.user_id == 1).first()
    if request.shuffle is not None:
        state.shuffle = request.shuffle
    if request.repeat_mode is not None:
        state.repeat_mode = request.repeat_mode
    state.updated_at = datetime.utcnow()
    session.commit()
    result = build_playback_state(session, state)
    session.close()
    return result


@app.put("/api/me/player/volume", response_model=DeviceResponse, summary="Set device volume", description="Set the volume of a device, by default the active one.", tags=["player"], operation_id="set_volume")
async def set_volume(request: VolumeRequest):
    session = SessionLocal()
    query = session.query(Device).filter(Device.user_id == 1)
    if request.device_id is not None:
        device = query.filter(Device.id == request.device_id).first()
    else:
        device = query.filter(Device.is_active == True).first()
    device.volume_percent = request.volume_percent
    session.commit()
    session.refresh(device)
    result = DeviceResponse.model_validate(device)
    session.close()
    return result


@app.get("/api/me/player/queue", response_model=List[QueueItemResponse], summary="Get the play queue", description="List the current user's upcoming queue in play order.", tags=["player"], operation_id="get_queue")
async def get_queue():
    session = SessionLocal()
    items = session.query(QueueItem).filter(QueueItem.user_id == 1).order_by(QueueItem.position, QueueItem.id).all()
    result = [build_queue_item(session, item) for item in items]
    session.close()
    return result


@app.post("/api/me/player/queue", response_model=QueueItemResponse, summary="Add to queue", description="Append a track or podcast episode to the end of the current user's queue.", tags=["player"], operation_id="add_to_queue")
async def add_to_queue(request: QueueAddRequest):
    session = SessionLocal()
    last_position = session.query(func.coalesce(func.max(QueueItem.position), 0)).filter(QueueItem.user_id == 1).scalar()
    if request.track_id is not None:
        track = session.query(Track).filter(Track.id == request.track_id).first()
        item = QueueItem(user_id=1, track_id=track.id, episode_id=None, position=last_position + 1, added_at=datetime.utcnow())
    else:
        episode = session.query(Episode).filter(Episode.id == request.episode_id).first()
        item = QueueItem(user_id=1, track_id=None, episode_id=episode.id, position=last_position + 1, added_at=datetime.utcnow())
    session.add(item)
    session.commit()
    session.refresh(item)
    result = build_queue_item(session, item)
    session.close()
    return result


@app.delete("/api/me/player/queue/{queue_item_id}", response_model=ActionResponse, summary="Remove a queue item", description="Remove one item from the queue and close the gap in positions.", tags=["player"], operation_id="remove_from_queue")
async def remove_from_queue(queue_item_id: int = Path(..., description="Queue item ID (not the track ID)")):
    session = SessionLocal()
    item = session.query(QueueItem).filter(QueueItem.id == queue_item_id, QueueItem.user_id == 1).first()
    removed_position = item.position
    session.delete(item)
    session.query(QueueItem).filter(QueueItem.user_id == 1, QueueItem.position > removed_position).update({QueueItem.position: QueueItem.position - 1}, synchronize_session=False)
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Queue item {queue_item_id} removed")


@app.delete("/api/me/player/queue", response_model=ActionResponse, summary="Clear the queue", description="Remove every item from the current user's queue.", tags=["player"], operation_id="clear_queue")
async def clear_queue():
    session = SessionLocal()
    deleted = session.query(QueueItem).filter(QueueItem.user_id == 1).delete()
    session.commit()
    session.close()
    return ActionResponse(success=True, message=f"Removed {deleted} items from the queue")


@app.get("/api/me/settings", response_model=SettingsResponse, summary="Get my settings", description="Return the current user's playback and privacy settings.", tags=["settings"], operation_id="get_settings")
async def get_settings():
    session = SessionLocal()
    settings = session.query(UserSettings).filter(UserSettings.user_id == 1).first()
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


@app.patch("/api/me/settings", response_model=SettingsResponse, summary="Update my settings", description="Change audio quality, crossfade, explicit filter, autoplay, normalization, private session or language.", tags=["settings"], operation_id="update_settings")
async def update_settings(request: SettingsUpdateRequest):
    session = SessionLocal()
    settings = session.query(UserSettings).filter(UserSettings.user_id == 1).first()
    if request.audio_quality is not None:
        settings.audio_quality = request.audio_quality
    if request.crossfade_seconds is not None:
        settings.crossfade_seconds = request.crossfade_seconds
    if request.explicit_content_allowed is not None:
        settings.explicit_content_allowed = request.explicit_content_allowed
    if request.autoplay is not None:
        settings.autoplay = request.autoplay
    if request.normalize_volume is not None:
        settings.normalize_volume = request.normalize_volume
    if request.private_session is not None:
        settings.private_session = request.private_session
    if request.language is not None:
        settings.language = request.language
    settings.updated_at = datetime.utcnow()
    session.commit()
    session.refresh(settings)
    result = SettingsResponse.model_validate(settings)
    session.close()
    return result


if __name__ == "__main__":
    import uvicorn
    host = os.getenv("HOST", "127.0.0.1")
    port = int(os.getenv("PORT", "8000"))
    uvicorn.run(app, host=host, port=port)
